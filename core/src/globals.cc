// xshmem core: the executable's global and static variables as symmetric memory (globals.h).
#include "globals.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "log.h"

namespace xshmem::core::globals {

namespace {

constexpr const char *kSubsys = "globals";

size_t page_size() {
  return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

struct Range {
  uintptr_t lo, hi;  // [lo, hi)
  uint64_t link_lo;  // lo - load bias
};

struct Scan {
  bool seen = false;
  std::vector<Range> writable;  // the writable PT_LOADs, RELRO removed, page aligned
  std::string why;
};

// dl_iterate_phdr visits the main program first; the scan stops there.
int scan_main(dl_phdr_info *info, size_t, void *data) {
  Scan *s = static_cast<Scan *>(data);
  s->seen = true;
  const uintptr_t pg = page_size();
  uintptr_t relro_lo = 0, relro_hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &p = info->dlpi_phdr[i];
    if (p.p_type == PT_GNU_RELRO) {
      relro_lo = info->dlpi_addr + p.p_vaddr;
      // ld.so makes [page_down(lo), page_down(lo + size)) read-only; a page the end shares stays
      // writable.
      relro_hi = (info->dlpi_addr + p.p_vaddr + p.p_memsz) & ~(pg - 1);
    }
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD || !(p.p_flags & PF_W) || p.p_memsz == 0) continue;
    uintptr_t lo = (info->dlpi_addr + p.p_vaddr) & ~(pg - 1);
    uintptr_t hi = (info->dlpi_addr + p.p_vaddr + p.p_memsz + pg - 1) & ~(pg - 1);
    if (relro_hi > relro_lo && lo >= (relro_lo & ~(pg - 1)) && lo < relro_hi)
      lo = relro_hi;  // the RELRO head is read-only after relocation
    if (lo >= hi) continue;
    s->writable.push_back({lo, hi, lo - info->dlpi_addr});
  }
  return 1;
}

// Whether every page of [lo, hi) is mapped readable and writable (from /proc/self/maps).
bool mapped_rw(uintptr_t lo, uintptr_t hi, std::string *why) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) {
    *why = std::string("cannot read /proc/self/maps: ") + strerror(errno);
    return false;
  }
  uintptr_t at = lo;
  char line[512];
  while (at < hi && fgets(line, sizeof line, f)) {
    unsigned long a = 0, b = 0;
    char perms[8] = {0};
    if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3) continue;
    if (b <= at || a > at) continue;
    if (perms[0] != 'r' || perms[1] != 'w') break;
    at = b;
  }
  fclose(f);
  if (at < hi) {
    char buf[128];
    snprintf(buf, sizeof buf, "the page at %#lx of the executable's data is not mapped read-write",
             static_cast<unsigned long>(at));
    *why = buf;
    return false;
  }
  return true;
}

bool zero_page(const char *p, size_t n) {
  const uint64_t *w = reinterpret_cast<const uint64_t *>(p);
  for (size_t i = 0; i < n / sizeof(uint64_t); ++i)
    if (w[i] != 0) return false;
  return true;
}

// Copies the non-zero pages of [from, from + n) to `to` (whose pages are zero) and moves `to`'s
// mapping over `from` (mremap: the range is never unmapped in between).
Status move_over(void *to, uintptr_t from, size_t n, const char *what) {
  const size_t pg = page_size();
  const char *src = reinterpret_cast<const char *>(from);
  char *dst = static_cast<char *>(to);
  for (size_t off = 0; off < n; off += pg)
    if (!zero_page(src + off, pg)) memcpy(dst + off, src + off, pg);
  void *r = mremap(to, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void *>(from));
  if (r == MAP_FAILED) {
    XLOG_ERROR(kSubsys, "cannot move %s over the executable's data at %#lx (%zu bytes): %s", what,
               static_cast<unsigned long>(from), n, strerror(errno));
    munmap(to, n);
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

}  // namespace

Segment find_executable(std::string *why) {
  Scan s;
  dl_iterate_phdr(scan_main, &s);
  if (!s.seen || s.writable.empty()) {
    *why = "the executable has no writable data segment";
    return {};
  }
  std::sort(s.writable.begin(), s.writable.end(),
            [](const Range &a, const Range &b) { return a.lo < b.lo; });
  // Several writable segments (lld puts RELRO data in its own): one span when they abut.
  Range r = s.writable[0];
  for (size_t i = 1; i < s.writable.size(); ++i) {
    if (s.writable[i].lo != r.hi) {
      *why = "the executable's writable data is in separate pieces (not supported)";
      return {};
    }
    r.hi = s.writable[i].hi;
  }
  if (!mapped_rw(r.lo, r.hi, why)) return {};
  Segment seg;
  seg.base = r.lo;
  seg.size = r.hi - r.lo;
  seg.link_addr = r.link_lo;
  return seg;
}

Status attach(const Segment &seg, int fd, size_t fd_offset) {
  void *to = mmap(nullptr, seg.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                  static_cast<off_t>(fd_offset));
  if (to == MAP_FAILED) {
    XLOG_ERROR(kSubsys, "cannot map the heap's globals window (%zu bytes): %s", seg.size,
               strerror(errno));
    return XSHMEM_ERR_NOMEM;
  }
  Status st = move_over(to, seg.base, seg.size, "the heap's globals window");
  if (st.ok())
    XLOG_DEBUG(kSubsys, "the executable's data [%#lx, +%zu) is symmetric (heap window at %zu)",
               static_cast<unsigned long>(seg.base), seg.size, fd_offset);
  return st;
}

Status detach(const Segment &seg) {
  void *to = mmap(nullptr, seg.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (to == MAP_FAILED) {
    XLOG_ERROR(kSubsys, "cannot allocate %zu bytes to give the executable's data back: %s",
               seg.size, strerror(errno));
    return XSHMEM_ERR_NOMEM;
  }
  return move_over(to, seg.base, seg.size, "private memory");
}

}  // namespace xshmem::core::globals
