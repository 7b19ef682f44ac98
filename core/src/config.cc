// xshmem core: the one configuration table.
#include "config.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "log.h"

extern char **environ;

namespace xshmem::config {
namespace {

// The core's own variables. Plugins add theirs through register_entries.
const xshmem_config_entry_v1_t kCoreEntries[] = {
    {"XSHMEM_LOG_LEVEL", XSHMEM_CONFIG_ENUM, "warn", "error,warn,info,debug,trace",
     "Most verbose log level printed; info shows the transport chosen for each peer."},
    {"XSHMEM_LOG_SUBSYS", XSHMEM_CONFIG_LIST, "", nullptr,
     "Subsystems whose log lines are shown (core, plugins, config, a plugin's name, ...); "
     "^a,b hides a and b, empty shows all; errors are always shown."},
    {"XSHMEM_LOG_FILE", XSHMEM_CONFIG_STRING, "", nullptr,
     "File the log is appended to instead of stderr; %h is replaced by the host name and %p by "
     "the process id."},
    {"XSHMEM_PLUGIN_PATH", XSHMEM_CONFIG_STRING, "", nullptr,
     "Colon-separated folders searched for transport and bootstrap plugins before the built-in "
     "plugin folder."},
    {"XSHMEM_BOOTSTRAP", XSHMEM_CONFIG_STRING, "", nullptr,
     "Bootstrap plugin that starts the job (tcp, mpi, pmix, ...); empty detects it from the "
     "launcher's environment."},
    {"XSHMEM_TRANSPORTS", XSHMEM_CONFIG_LIST, "", nullptr,
     "Transports allowed to reach peers (nvlink, ibgda, libfabric, hostshm, ...); ^a,b excludes "
     "a and b, empty allows every transport found."},
    {"XSHMEM_REMOTE_TRANSPORT", XSHMEM_CONFIG_STRING, "", nullptr,
     "Transport for every peer on another host (ibgda, libfabric, ...); it must be loaded and "
     "allowed by XSHMEM_TRANSPORTS, and a peer on another host that it cannot reach stops init "
     "with an error naming the pair; empty picks the cheapest transport per peer."},
    {"XSHMEM_PAIR_TRANSPORTS", XSHMEM_CONFIG_STRING, "", nullptr,
     "Per-pair transport overrides for experts, <pe>-<pe|*>:<transport>[,...] (for example "
     "0-1:hostshm,2-*:libfabric); a pair applies in both directions, * is every other PE, the "
     "first matching entry wins over XSHMEM_REMOTE_TRANSPORT; malformed text, an unknown or "
     "excluded transport, or one that cannot reach the pair stops init with an error."},
    {"XSHMEM_NICS", XSHMEM_CONFIG_STRING, "", nullptr,
     "RDMA NICs that NIC transports may use, as NCCL_IB_HCA: mlx5_0,mlx5_1 allows only those, "
     "^mlx5_2 excludes it, <nic>:<port> names one port; empty allows every NIC. Each PE takes "
     "the allowed NIC nearest its GPU (PIX < PXB < PHB < NODE < SYS). Read when a NIC transport "
     "will carry traffic (a PE on another host, or the transport named in XSHMEM_TRANSPORTS or "
     "XSHMEM_PAIR_TRANSPORTS); then malformed text or a NIC this host lacks stops init."},
    {"XSHMEM_NIC_MAP", XSHMEM_CONFIG_STRING, "", nullptr,
     "Explicit NIC per PE, keyed by the PE's local rank on its node (the same map on every "
     "node): <local pe>:<nic>[,...], for example 0:mlx5_0,1:mlx5_1; PEs it does not list take "
     "the nearest allowed NIC. Read when XSHMEM_NICS is; then malformed text or a NIC this host "
     "lacks stops init with an error."},
    {"XSHMEM_SYMMETRIC_SIZE", XSHMEM_CONFIG_SIZE, "1G", nullptr,
     "Bytes of symmetric heap reserved on each PE; raise it when xshmem_malloc runs out of "
     "space. A value that does not parse or overflows, 0, or more than 1E stops init with an "
     "error."},
    {"XSHMEM_SYMMETRIC_GLOBALS", XSHMEM_CONFIG_BOOL, "1", nullptr,
     "CPU PEs (host heaps): the executable's global and static variables are symmetric objects "
     "(OpenSHMEM), backed by the heap's shared pages from init to the last finalize. 0 leaves "
     "them private (RMA on them is then a checked-mode error)."},
    {"XSHMEM_HEAP", XSHMEM_CONFIG_ENUM, "auto", "auto,host,device",
     "Where the symmetric heap lives: device (GPU memory), host (shared host memory, CPU PEs), or "
     "auto (device when a GPU is usable)."},
    {"XSHMEM_WAIT_TIMEOUT", XSHMEM_CONFIG_DURATION, "0", nullptr,
     "Deadline of every blocking wait (wait_until and its forms, signal_wait_until, set_lock, "
     "barriers, syncs, collectives; host and device): a wait that lasts longer prints the call, "
     "the PE and the value it waited for and stops the job; 0 (the default) turns it off."},
    {"XSHMEM_HOST_WAIT_SPINS", XSHMEM_CONFIG_STRING, "auto", nullptr,
     "Polls (with a pause) a host wait makes before it yields its core on every further poll: "
     "auto is 64, or 0 where this node's PEs outnumber the CPUs a PE may run on (oversubscribed: "
     "a waiting PE then yields at once to the PE it waits for); or a number from 0 to 1000000."},
    {"XSHMEM_CHECKS", XSHMEM_CONFIG_BOOL, "1", nullptr,
     "Validate API arguments and stop the job with a diagnostic on misuse; turn off only for "
     "benchmarks of correct programs."},
    {"XSHMEM_MAX_CONTEXTS", XSHMEM_CONFIG_INT, "1024", nullptr,
     "Contexts (xshmem_ctx_create, xshmem_team_create_ctx) that can exist at once on a PE, "
     "besides XSHMEM_CTX_DEFAULT; a creation beyond it returns nonzero and XSHMEM_CTX_INVALID."},
    {"XSHMEM_INIT_TIMEOUT", XSHMEM_CONFIG_DURATION, "60s", nullptr,
     "Longest time xshmem_init waits for the other PEs of the job before failing; 0, or more "
     "than 2147483647ms, is rejected with a warning and the default applies."},
    {"XSHMEM_LIVENESS_TIMEOUT", XSHMEM_CONFIG_DURATION, "60s", nullptr,
     "A PE from which the bootstrap's control thread hears nothing (no message, no heartbeat) "
     "for this long is declared frozen and the job stops naming it; 0 turns the check off (for "
     "debuggers)."},
    {"XSHMEM_CUDA_DEVICE", XSHMEM_CONFIG_INT, "-1", nullptr,
     "CUDA device (ordinal among the visible devices) that holds this PE's GPU heap; -1 picks "
     "the PE's rank on its host modulo the number of visible devices."},
    {"XSHMEM_CUDA_HEAP_CHUNK", XSHMEM_CONFIG_SIZE, "512M", nullptr,
     "GPU heaps commit physical memory in chunks of this size as allocations need it (rounded "
     "to the CUDA allocation granularity); smaller chunks waste less memory, larger ones make "
     "fewer mappings."},
    {"XSHMEM_CUDA_FABRIC", XSHMEM_CONFIG_BOOL, "0", nullptr,
     "Use CUDA fabric handles for the GPU heap (multi-node NVLink; needs IMEX); off: POSIX "
     "file-descriptor handles only."},
    {"XSHMEM_COLL_REDUCE_ALGO", XSHMEM_CONFIG_ENUM, "auto", "auto,direct,rsag",
     "Algorithm of the team reductions and scans: direct (each member pushes its data into every "
     "other member's team scratch with one signal per chunk; latency-bound sizes, any transport), "
     "rsag (reduce-scatter then allgather by loads from load/store-reachable peers; large sizes), "
     "or auto (direct up to 4 scratch chunks and teams of at most 31 PEs, rsag above)."},
    {"XSHMEM_COLL_BCAST_ALGO", XSHMEM_CONFIG_ENUM, "auto", "auto,direct,tree",
     "Algorithm of the team broadcasts: direct (the root pushes the payload to every member), "
     "tree (binomial tree from the root, pipelined in 64 KiB chunks), or auto (tree for teams of "
     "more than 8 PEs, or of more than 2 PEs and payloads of at least 64 KiB; direct otherwise). "
     "Must be the same on every PE."},
    {"XSHMEM_COLL_FCOLLECT_ALGO", XSHMEM_CONFIG_ENUM, "auto", "auto,direct,ring",
     "Algorithm of the team fcollects and collects: direct (each member pushes its block to every "
     "member), ring (n - 1 steps, each member forwards the block it last received to its right "
     "neighbour), or auto (ring for teams of more than 8 PEs with blocks of at least 64 KiB, "
     "collect: on average; direct otherwise). Must be the same on every PE."},
    // The proxy engine (core/src/proxy/).
    {"XSHMEM_PROXY_CHANNELS", XSHMEM_CONFIG_INT, "4", nullptr,
     "Request rings (channels) of the proxy engine, 1 to 64; each is a queue or endpoint of the "
     "transports serving PROXY peers, and the operations of one channel complete in order."},
    {"XSHMEM_PROXY_CHANNEL_MAP", XSHMEM_CONFIG_ENUM, "ctx", "ctx,warp",
     "How an operation to a PROXY peer picks its channel: ctx (the context's entry modulo "
     "XSHMEM_PROXY_CHANNELS) or warp (a GPU thread's global warp number modulo the channels; host "
     "threads use ctx)."},
    {"XSHMEM_PROXY_THREADS", XSHMEM_CONFIG_INT, "1", nullptr,
     "Proxy threads per PE, 1 to XSHMEM_PROXY_CHANNELS; thread t drains channels t, t + threads, "
     "..."},
    {"XSHMEM_PROXY_RING_SLOTS", XSHMEM_CONFIG_INT, "256", nullptr,
     "Requests each proxy channel holds (a power of two from 4 to 65536); a producer that finds "
     "its channel full waits for the proxy."},
    {"XSHMEM_PROXY_CPUS", XSHMEM_CONFIG_STRING, "", nullptr,
     "CPUs the proxy threads are pinned to, as a list (\"0-3,8\"; the PEs of a host take turns "
     "over it); empty: the CPUs near the PE's NIC, else near its GPU, else unpinned."},
    {"XSHMEM_PROXY_HOST", XSHMEM_CONFIG_BOOL, "0", nullptr,
     "CPU PEs: host threads reach PROXY peers through the proxy engine's rings and threads, as GPU "
     "threads do, instead of calling the transport themselves (runs the GPU PEs' proxy path on "
     "CPUs; the operations then progress while the caller computes)."},
};

struct Entry {
  std::string name;
  xshmem_config_type_t type;
  std::string default_value;
  std::string choices;  // empty: none
  std::string doc;
  std::string owner;
};

struct Registry {
  std::mutex mu;
  std::vector<Entry> entries;
  std::set<std::string> warned;  // "name=value" already warned about
};

thread_local std::vector<std::string> t_owner_scopes;

// Core variables whose parsed value must lie in a range (a deadline of 0 is no deadline, and the
// consumer hands the value to poll() as an int): a value outside is invalid like one that does
// not parse, so the caller gets the default and a warning.
struct Range {
  const char *name;
  int64_t lo, hi;
  const char *what;
};
const Range kRanges[] = {
    {"XSHMEM_INIT_TIMEOUT", 1, INT32_MAX,
     "expected a duration above 0 and at most 2147483647ms (about 24 days)"},
};

const Range *find_range(const std::string &name) {
  for (const Range &r : kRanges)
    if (name == r.name) return &r;
  return nullptr;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- NVSHMEM aliases ------------------------------------------------------------------------
//
// The NVSHMEM_* variables that nvshmem.h programs bring, each standing for an XSHMEM_* entry (or,
// name NULL, accepted with nothing to do). The XSHMEM_* variable, when set, wins. A translation
// gives the XSHMEM value for the alias's text, "" for "nothing to set" (then *why may say why the
// text means nothing here: warned about, ignored).
struct Alias {
  const char *alias;
  const char *name;
  std::string (*translate)(const std::string &text, std::string *why);
  const char *note;
};

std::string tr_bootstrap(const std::string &t, std::string *why) {
  if (t == "mpi") return "mpi";
  if (t == "uid") return "tcp";
  if (t == "pmi" || t == "pmix" || t == "pmi2") return "pmix";
  *why = "xshmem has no '" + t + "' bootstrap (it has tcp, for NVSHMEM's UID, mpi and pmix)";
  return "";
}
std::string tr_debug(const std::string &t, std::string *why) {
  if (t == "warn" || t == "info" || t == "trace") return t;
  if (t == "version" || t == "abort") return "warn";
  *why = "expected VERSION, WARN, INFO, ABORT or TRACE";
  return "";
}
std::string tr_remote(const std::string &t, std::string *why) {
  if (t == "ibgda" || t == "libfabric") return t;
  if (t != "none")  // none: one node, which the default serves
    *why = "xshmem has no '" + t + "' transport; its remote transports are ibgda and libfabric";
  return "";
}
std::string tr_bool_to(const std::string &t, std::string *why, const char *on) {
  const std::optional<bool> b = parse_bool(t);
  if (!b) *why = "expected a boolean";
  return b.value_or(false) ? on : "";
}
std::string tr_ibgda(const std::string &t, std::string *why) {
  return tr_bool_to(t, why, "ibgda");
}
std::string tr_no_p2p(const std::string &t, std::string *why) {
  return tr_bool_to(t, why, "^nvlink");
}

const Alias kAliases[] = {
    {"NVSHMEM_SYMMETRIC_SIZE", "XSHMEM_SYMMETRIC_SIZE", nullptr, "the same size syntax"},
    {"NVSHMEM_BOOTSTRAP", "XSHMEM_BOOTSTRAP", tr_bootstrap,
     "UID: tcp (unique id), MPI: mpi, PMI, PMI2 and PMIX: pmix"},
    {"NVSHMEM_DEBUG", "XSHMEM_LOG_LEVEL", tr_debug,
     "WARN, INFO and TRACE as themselves, VERSION and ABORT: warn"},
    {"NVSHMEM_DEBUG_FILE", "XSHMEM_LOG_FILE", nullptr, "%h and %p as in NVSHMEM"},
    {"NVSHMEM_REMOTE_TRANSPORT", "XSHMEM_REMOTE_TRANSPORT", tr_remote,
     "ibgda and libfabric as themselves, none: the default; ibrc, ibdevx and ucx do not exist "
     "here"},
    {"NVSHMEM_IB_ENABLE_IBGDA", "XSHMEM_REMOTE_TRANSPORT", tr_ibgda, "true: ibgda"},
    {"NVSHMEM_HCA_LIST", "XSHMEM_NICS", nullptr, "the same syntax (NCCL_IB_HCA's)"},
    {"NVSHMEM_DISABLE_P2P", "XSHMEM_TRANSPORTS", tr_no_p2p, "true: ^nvlink"},
    {"NVSHMEM_CUMEM_GRANULARITY", "XSHMEM_CUDA_HEAP_CHUNK", nullptr,
     "the GPU heap's commit granularity"},
    {"NVSHMEM_DISABLE_NVLS", nullptr, nullptr, "nothing to do: xshmem never uses NVLink multicast"},
    {"NVSHMEM_DISABLE_CUDA_VMM", nullptr, nullptr,
     "nothing to do: the GPU heap is always CUDA VMM (cuMemCreate)"},
};

// The alias's text and its translation for `a` (false: unset or empty).
bool alias_text(const Alias &a, std::string *text, std::string *value, std::string *why) {
  const char *raw = getenv(a.alias);
  if (raw == nullptr) return false;
  *text = trim(raw);
  if (text->empty()) return false;
  why->clear();
  *value = a.translate != nullptr ? a.translate(lower(*text), why) : *text;
  return true;
}

std::vector<std::string> split_words(const std::string &text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string w = trim(text.substr(pos, comma - pos));
    if (!w.empty()) out.push_back(w);
    pos = comma + 1;
  }
  return out;
}

const char *type_name(xshmem_config_type_t t) {
  switch (t) {
    case XSHMEM_CONFIG_BOOL:
      return "bool";
    case XSHMEM_CONFIG_INT:
      return "int";
    case XSHMEM_CONFIG_SIZE:
      return "size";
    case XSHMEM_CONFIG_STRING:
      return "string";
    case XSHMEM_CONFIG_ENUM:
      return "enum";
    case XSHMEM_CONFIG_LIST:
      return "list";
    case XSHMEM_CONFIG_DURATION:
      return "duration";
  }
  return "?";
}

// The canonical choice matching `word` (case-insensitive), or "".
std::string match_choice(const std::string &choices, const std::string &word) {
  for (const std::string &c : split_words(choices))
    if (strcasecmp(c.c_str(), word.c_str()) == 0) return lower(c);
  return "";
}

// Whether `text`, which does not parse as `type`, is a well-formed number too large for 64 bits
// (rather than malformed text): with its digits replaced by "1" it parses.
bool overflows(xshmem_config_type_t type, const std::string &text) {
  std::string s = trim(text);
  size_t i = 0;
  if (type == XSHMEM_CONFIG_INT && i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  const size_t sign = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == sign) return false;
  const std::string small = s.substr(0, sign) + "1" + s.substr(i);
  switch (type) {
    case XSHMEM_CONFIG_INT:
      return parse_int(small).has_value();
    case XSHMEM_CONFIG_SIZE:
      return parse_size(small).has_value();
    case XSHMEM_CONFIG_DURATION:
      return parse_duration_ms(small).has_value();
    default:
      return false;
  }
}

// Empty when `text` is a valid value of entry `e`, else why not: "expected <what>", or what is
// wrong with a well-formed number ("it overflows 64 bits (expected ...)").
std::string check_value(const Entry &e, const std::string &text) {
  switch (e.type) {
    case XSHMEM_CONFIG_BOOL:
      if (parse_bool(text)) return "";
      return "expected a boolean (1/0, y/n, yes/no, on/off, true/false)";
    case XSHMEM_CONFIG_INT:
      if (parse_int(text)) return "";
      if (overflows(e.type, text))
        return "it overflows 64 bits (expected a decimal integer from -9223372036854775808 to "
               "9223372036854775807)";
      return "expected a decimal integer";
    case XSHMEM_CONFIG_SIZE:
      if (parse_size(text)) return "";
      if (overflows(e.type, text))
        return "it overflows 64 bits (expected a size below 16E, which is 2^64 bytes)";
      return "expected a size in bytes with an optional K, M, G, T, P or E suffix (for example "
             "4096, 64K, 2G)";
    case XSHMEM_CONFIG_DURATION:
      if (std::optional<int64_t> ms = parse_duration_ms(text)) {
        const Range *r = find_range(e.name);
        if (r == nullptr || (*ms >= r->lo && *ms <= r->hi)) return "";
        return r->what;
      }
      if (overflows(e.type, text))
        return "it overflows 64 bits (expected a duration below 2^63 ms)";
      return "expected a duration in seconds with an optional ms, s or m suffix (for example "
             "500ms, 30s, 2m)";
    case XSHMEM_CONFIG_ENUM:
      if (!match_choice(e.choices, trim(text)).empty()) return "";
      return "expected one of " + e.choices;
    case XSHMEM_CONFIG_STRING:
    case XSHMEM_CONFIG_LIST:
      return "";
  }
  return "expected a known type";
}

Registry &registry() {
  // Never destroyed: plugins may read configuration from static destructors at exit.
  static Registry *r = [] {
    auto *reg = new Registry;
    for (const auto &c : kCoreEntries)
      reg->entries.push_back(
          {c.name, c.type, c.default_value, c.choices ? c.choices : "", c.doc, "core"});
    return reg;
  }();
  return *r;
}

std::optional<Entry> find_entry(const char *name) {
  if (name == nullptr) return std::nullopt;
  Registry &r = registry();
  std::lock_guard lock(r.mu);
  for (const Entry &e : r.entries)
    if (e.name == name) return e;
  return std::nullopt;
}

struct Resolved {
  std::string text;  // the effective value
  bool from_env = false;
  std::string via;     // an NVSHMEM alias the environment's value came from
  std::string env;     // the environment's text when set
  std::string expect;  // non-empty: why the environment's value is invalid (check_value)
};

// Warns once about `key` (first call for it).
bool first_warning(const std::string &key) {
  Registry &r = registry();
  std::lock_guard lock(r.mu);
  return r.warned.insert(key).second;
}

Resolved resolve(const Entry &e, bool warn) {
  Resolved res;
  res.text = e.default_value;
  std::string why;
  std::string env = env_text(e.name.c_str(), &res.via, &why);
  if (warn) {
    // An alias that means nothing here, or one that XSHMEM's own variable overrides.
    for (const Alias &a : kAliases) {
      if (a.name == nullptr || e.name != a.name) continue;
      std::string text, value, bad;
      if (!alias_text(a, &text, &value, &bad) || a.alias == res.via) continue;
      if (!bad.empty() && first_warning(std::string("!") + a.alias + "=" + text))
        XLOG_WARN("config", "%s=%s is ignored: %s", a.alias, text.c_str(), bad.c_str());
      else if (bad.empty() && !value.empty() && first_warning(std::string("~") + a.alias))
        XLOG_WARN("config", "%s=%s is ignored: %s%s is set", a.alias, text.c_str(),
                  res.via.empty() ? e.name.c_str() : res.via.c_str(),
                  res.via.empty() ? "" : " (which comes first)");
    }
  }
  if (env.empty()) return res;  // set but empty means the same as unset
  res.env = env;
  res.expect = check_value(e, env);
  if (res.expect.empty()) {
    res.text = env;
    res.from_env = true;
    return res;
  }
  if (warn && first_warning(e.name + "=" + env))
    XLOG_WARN("config", "invalid value '%s' for %s%s%s%s: %s; using the default '%s'", env.c_str(),
              res.via.empty() ? "" : res.via.c_str(), res.via.empty() ? "" : " (", e.name.c_str(),
              res.via.empty() ? "" : ")", res.expect.c_str(), e.default_value.c_str());
  return res;
}

// Looks `name` up and checks that its type is one of `types`; logs the programming error.
std::optional<Entry> lookup(const char *name, std::initializer_list<xshmem_config_type_t> types,
                            const char *getter) {
  std::optional<Entry> e = find_entry(name);
  if (!e) {
    XLOG_ERROR("config", "%s(%s): no such configuration variable (add it to a config table)",
               getter, name ? name : "(null)");
    return std::nullopt;
  }
  if (std::find(types.begin(), types.end(), e->type) == types.end()) {
    XLOG_ERROR("config", "%s(%s): the variable is of type %s (a bug in the caller)", getter, name,
               type_name(e->type));
    return std::nullopt;
  }
  return e;
}

size_t levenshtein(const std::string &a, const std::string &b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

// ---- NVSHMEM aliases ------------------------------------------------------------------------

std::string env_text(const char *name, std::string *via, std::string *why) {
  if (via != nullptr) via->clear();
  if (why != nullptr) why->clear();
  if (name == nullptr) return "";
  if (const char *raw = getenv(name)) {
    std::string own = trim(raw);
    if (!own.empty()) return own;
  }
  for (const Alias &a : kAliases) {
    if (a.name == nullptr || strcmp(a.name, name) != 0) continue;
    std::string text, value, bad;
    if (!alias_text(a, &text, &value, &bad)) continue;
    if (value.empty()) {
      if (why != nullptr && why->empty()) *why = bad;
      continue;
    }
    if (via != nullptr) *via = a.alias;
    return value;
  }
  return "";
}

std::vector<AliasInfo> aliases() {
  std::vector<AliasInfo> out;
  for (const Alias &a : kAliases) {
    AliasInfo i;
    i.alias = a.alias;
    i.name = a.name ? a.name : "";
    i.meaning = a.note;
    std::string text, value, bad;
    if (alias_text(a, &text, &value, &bad)) {
      i.set = true;
      i.text = text;
      i.value = value;
      std::string via;
      if (!bad.empty())
        i.outcome = "ignored: " + bad;
      else if (a.name == nullptr)
        i.outcome = "accepted";
      else if (value.empty())
        i.outcome = "accepted, nothing to set";
      else if ((void)env_text(a.name, &via), via == a.alias)
        i.outcome = "used as " + i.name + "=" + value;
      else
        i.outcome = "ignored: " + (via.empty() ? i.name : via) + " is set";
    }
    out.push_back(std::move(i));
  }
  return out;
}

bool is_alias(const std::string &name) {
  for (const Alias &a : kAliases)
    if (name == a.alias) return true;
  return false;
}

// ---- Registration --------------------------------------------------------------------------

OwnerScope::OwnerScope(const char *owner) {
  t_owner_scopes.push_back(owner ? owner : "core");
}
OwnerScope::~OwnerScope() {
  t_owner_scopes.pop_back();
}

Status register_entries(const xshmem_config_entry_v1_t *entries, size_t n, const char *owner) {
  std::string who = owner ? owner : "core";
  if ((owner == nullptr || who == "core") && !t_owner_scopes.empty()) who = t_owner_scopes.back();
  if (n > 0 && entries == nullptr) {
    XLOG_ERROR("config", "%s registered %zu entries from a null table", who.c_str(), n);
    return XSHMEM_ERR_INVALID;
  }
  std::vector<Entry> batch;
  for (size_t i = 0; i < n; ++i) {
    const xshmem_config_entry_v1_t &c = entries[i];
    const char *name = c.name ? c.name : "(null)";
    std::string why;
    Entry e{name,
            c.type,
            c.default_value ? c.default_value : "",
            c.choices ? c.choices : "",
            c.doc ? c.doc : "",
            who};
    if (c.name == nullptr || strncmp(c.name, "XSHMEM_", 7) != 0 || strlen(c.name) == 7) {
      why = "the name must start with XSHMEM_";
    } else if (c.type < XSHMEM_CONFIG_BOOL || c.type > XSHMEM_CONFIG_DURATION) {
      why = "unknown type " + std::to_string(static_cast<int>(c.type));
    } else if (c.type == XSHMEM_CONFIG_ENUM && split_words(e.choices).empty()) {
      why = "an enum needs choices";
    } else if (std::string bad = check_value(e, e.default_value); !bad.empty()) {
      why = "default '" + e.default_value + "' " +
            (bad.rfind("expected ", 0) == 0 ? "is not " + bad.substr(9) : "is invalid: " + bad);
    } else {
      for (const Entry &b : batch)
        if (b.name == e.name) why = "the name appears twice in the table";
    }
    if (!why.empty()) {
      XLOG_ERROR("config", "cannot register %s for %s: %s", name, who.c_str(), why.c_str());
      return XSHMEM_ERR_INVALID;
    }
    batch.push_back(std::move(e));
  }

  Registry &r = registry();
  std::lock_guard lock(r.mu);
  for (const Entry &e : batch) {
    for (const Entry &old : r.entries) {
      if (old.name == e.name && old.owner != who) {
        XLOG_ERROR("config", "cannot register %s for %s: it is already registered by %s",
                   e.name.c_str(), who.c_str(), old.owner.c_str());
        return XSHMEM_ERR_INVALID;
      }
    }
  }
  for (Entry &e : batch) {
    auto it = std::find_if(r.entries.begin(), r.entries.end(),
                           [&](const Entry &old) { return old.name == e.name; });
    if (it != r.entries.end())
      *it = std::move(e);
    else
      r.entries.push_back(std::move(e));
  }
  return XSHMEM_SUCCESS;
}

void unregister_owner(const char *owner) {
  if (owner == nullptr) return;
  Registry &r = registry();
  std::lock_guard lock(r.mu);
  std::erase_if(r.entries, [&](const Entry &e) { return e.owner == owner; });
}

// ---- Parsers -------------------------------------------------------------------------------

std::optional<uint64_t> parse_size(const std::string &text) {
  std::string s = lower(trim(text));
  size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string suffix = trim(s.substr(i));
  if (!suffix.empty() && suffix.back() == 'b') suffix.pop_back();
  int shift;
  if (suffix.empty())
    shift = 0;
  else if (suffix == "k")
    shift = 10;
  else if (suffix == "m")
    shift = 20;
  else if (suffix == "g")
    shift = 30;
  else if (suffix == "t")
    shift = 40;
  else if (suffix == "p")
    shift = 50;
  else if (suffix == "e")
    shift = 60;
  else
    return std::nullopt;
  if (shift > 0 && v > (UINT64_MAX >> shift)) return std::nullopt;
  return v << shift;
}

std::optional<bool> parse_bool(const std::string &text) {
  std::string s = lower(trim(text));
  if (s == "1" || s == "y" || s == "yes" || s == "on" || s == "true") return true;
  if (s == "0" || s == "n" || s == "no" || s == "off" || s == "false") return false;
  return std::nullopt;
}

std::optional<int64_t> parse_int(const std::string &text) {
  std::string s = trim(text);
  if (s.empty()) return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long v = strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> parse_duration_ms(const std::string &text) {
  std::string s = lower(trim(text));
  size_t i = 0;
  int64_t whole = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (whole > (INT64_MAX - 9) / 10) return std::nullopt;
    whole = whole * 10 + (s[i] - '0');
    ++i;
  }
  bool any_digit = i > 0;
  int64_t frac = 0, frac_scale = 1;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (frac_scale < 1000000000) {  // digits past the ninth cannot matter at ms resolution
        frac = frac * 10 + (s[i] - '0');
        frac_scale *= 10;
      }
      any_digit = true;
      ++i;
    }
  }
  if (!any_digit) return std::nullopt;
  std::string suffix = trim(s.substr(i));
  int64_t mult;
  if (suffix.empty() || suffix == "s")
    mult = 1000;
  else if (suffix == "ms")
    mult = 1;
  else if (suffix == "m")
    mult = 60000;
  else
    return std::nullopt;
  if (whole > INT64_MAX / mult - 1) return std::nullopt;
  return whole * mult + (frac * mult + frac_scale / 2) / frac_scale;
}

ListSpec parse_list(const std::string &text) {
  ListSpec spec;
  std::string s = trim(text);
  if (!s.empty() && s[0] == '^') {
    spec.exclude = true;
    s.erase(0, 1);
  }
  for (std::string w : split_words(s)) {
    while (!w.empty() && w[0] == '^') w = trim(w.substr(1));  // tolerate "^a,^b" (and "^^b")
    if (!w.empty()) spec.words.push_back(lower(w));
  }
  return spec;
}

bool ListSpec::selects(const std::string &word) const {
  bool listed = false;
  for (const std::string &w : words)
    if (strcasecmp(w.c_str(), word.c_str()) == 0) listed = true;
  if (exclude) return !listed;
  return words.empty() || listed;
}

// ---- Getters -------------------------------------------------------------------------------

std::string get_string(const char *name) {
  std::optional<Entry> e = find_entry(name);
  if (!e) {
    XLOG_ERROR("config",
               "get_string(%s): no such configuration variable (add it to a config "
               "table)",
               name ? name : "(null)");
    return "";
  }
  return resolve(*e, true).text;
}

int64_t get_int(const char *name) {
  std::optional<Entry> e = lookup(
      name, {XSHMEM_CONFIG_INT, XSHMEM_CONFIG_SIZE, XSHMEM_CONFIG_DURATION, XSHMEM_CONFIG_BOOL},
      "get_int");
  if (!e) return 0;
  std::string text = resolve(*e, true).text;
  switch (e->type) {
    case XSHMEM_CONFIG_SIZE: {
      uint64_t v = parse_size(text).value_or(0);
      return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
    }
    case XSHMEM_CONFIG_DURATION:
      return parse_duration_ms(text).value_or(0);
    case XSHMEM_CONFIG_BOOL:
      return parse_bool(text).value_or(false) ? 1 : 0;
    default:
      return parse_int(text).value_or(0);
  }
}

uint64_t get_size(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_SIZE, XSHMEM_CONFIG_INT}, "get_size");
  if (!e) return 0;
  std::string text = resolve(*e, true).text;
  if (e->type == XSHMEM_CONFIG_INT) {
    int64_t v = parse_int(text).value_or(0);
    return v < 0 ? 0 : static_cast<uint64_t>(v);
  }
  return parse_size(text).value_or(0);
}

bool get_bool(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_BOOL}, "get_bool");
  if (!e) return false;
  return parse_bool(resolve(*e, true).text).value_or(false);
}

int64_t get_duration_ms(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_DURATION}, "get_duration_ms");
  if (!e) return 0;
  return parse_duration_ms(resolve(*e, true).text).value_or(0);
}

std::string get_enum(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_ENUM}, "get_enum");
  if (!e) return "";
  return match_choice(e->choices, trim(resolve(*e, true).text));
}

std::string env_problem(const char *name, std::string *text) {
  std::optional<Entry> e = find_entry(name);
  if (!e) return "";
  Resolved res = resolve(*e, false);
  if (text != nullptr) *text = res.env;
  return res.expect;
}

ListSpec get_list_spec(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_LIST}, "get_list_spec");
  if (!e) return {};
  return parse_list(resolve(*e, true).text);
}

std::vector<std::string> get_list(const char *name) {
  std::optional<Entry> e = lookup(name, {XSHMEM_CONFIG_LIST}, "get_list");
  if (!e) return {};
  ListSpec spec = parse_list(resolve(*e, true).text);
  std::vector<std::string> out;
  if (e->choices.empty()) {
    for (const std::string &w : spec.words) out.push_back(spec.exclude ? "^" + w : w);
    return out;
  }
  std::vector<std::string> choices;
  for (const std::string &c : split_words(e->choices)) choices.push_back(lower(c));
  for (const std::string &w : spec.words) {
    if (std::find(choices.begin(), choices.end(), w) != choices.end()) continue;
    Registry &r = registry();
    bool first;
    {
      std::lock_guard lock(r.mu);
      first = r.warned.insert(e->name + "~" + w).second;
    }
    if (first)
      XLOG_WARN("config", "unknown word '%s' in %s: expected words from %s; ignoring it", w.c_str(),
                e->name.c_str(), e->choices.c_str());
  }
  if (spec.selects_all()) return choices;
  if (spec.exclude) {
    for (const std::string &c : choices)
      if (std::find(spec.words.begin(), spec.words.end(), c) == spec.words.end()) out.push_back(c);
    return out;
  }
  // Keep the order the user wrote: it may be a preference order.
  for (const std::string &w : spec.words)
    if (std::find(choices.begin(), choices.end(), w) != choices.end() &&
        std::find(out.begin(), out.end(), w) == out.end())
      out.push_back(w);
  return out;
}

// ---- Listing and unknown variables ---------------------------------------------------------

std::vector<VarInfo> list() {
  std::vector<Entry> entries;
  {
    Registry &r = registry();
    std::lock_guard lock(r.mu);
    entries = r.entries;
  }
  std::vector<VarInfo> out;
  out.reserve(entries.size());
  for (const Entry &e : entries) {
    Resolved res = resolve(e, false);
    VarInfo v;
    v.name = e.name;
    v.type = type_name(e.type);
    v.value = res.text;
    v.default_value = e.default_value;
    v.source = res.from_env ? "env" : "default";
    v.via = res.via;
    v.choices = e.choices;
    v.doc = e.doc;
    v.owner = e.owner;
    if (!res.expect.empty()) v.note = "invalid value '" + res.env + "' ignored: " + res.expect;
    out.push_back(std::move(v));
  }
  return out;
}

void warn_unknown() {
  std::vector<std::string> names;
  {
    Registry &r = registry();
    std::lock_guard lock(r.mu);
    for (const Entry &e : r.entries) names.push_back(e.name);
  }
  for (char **env = environ; env != nullptr && *env != nullptr; ++env) {
    const char *kv = *env;
    const char *eq = strchr(kv, '=');
    std::string name = eq ? std::string(kv, eq) : std::string(kv);
    std::string value = eq ? std::string(eq + 1) : "";
    if (strncmp(kv, "NVSHMEM_", 8) == 0 && !is_alias(name)) {
      {
        Registry &r = registry();
        std::lock_guard lock(r.mu);
        if (!r.warned.insert("?" + name).second) continue;
      }
      XLOG_INFO("config",
                "%s=%s has no xshmem equivalent and is ignored (xshmem-info --env lists the "
                "NVSHMEM variables it honours)",
                name.c_str(), value.c_str());
      continue;
    }
    if (strncmp(kv, "XSHMEM_", 7) != 0) continue;
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    {
      Registry &r = registry();
      std::lock_guard lock(r.mu);
      if (!r.warned.insert("?" + name + "=" + value).second) continue;
    }
    const std::string *best = nullptr;
    size_t best_d = SIZE_MAX;
    for (const std::string &known : names) {
      size_t d = levenshtein(name, known);
      if (d < best_d) {
        best_d = d;
        best = &known;
      }
    }
    if (best != nullptr)
      XLOG_WARN("config", "unknown variable %s=%s; did you mean %s?", name.c_str(), value.c_str(),
                best->c_str());
    else
      XLOG_WARN("config", "unknown variable %s=%s; no xshmem variable is registered", name.c_str(),
                value.c_str());
  }
}

}  // namespace xshmem::config
