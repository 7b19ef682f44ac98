// The ibgda transport's software NIC model (XSHMEM_IBGDA_NIC=model): what an mlx5 NIC does with
// the entries GPU threads and CPU PEs post (device/include/xshmem/device/gda_wqe.h), executed by
// a host thread, for machines without an mlx5 NIC (CI, the GPU machines here).
//
// It is split like an RC queue pair's two ends:
//   - the requester reads its send queue in posting order, validates every field of each entry
//     (decode), moves the local side of the operation through the local key table, and writes
//     completions in the mlx5 CQE format (writing a CQE, flushing after an error);
//   - the responder executes a request against the target PE's registered memory, checking the
//     remote key, the range and the access rights (execute), and answers with data or a
//     syndrome.
// Between them a request travels as a plain struct (request_t / reply_t); the transport carries
// it between processes. A malformed entry is never skipped: decode names the field, and the
// requester stops the queue (error state) with the position and the syndrome, as a NIC would.
#ifndef XSHMEM_BACKENDS_IBGDA_NIC_MODEL_H
#define XSHMEM_BACKENDS_IBGDA_NIC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <string>
#include <vector>

#include <xshmem/device/gda_wqe.h>

namespace xshmem::backend {
class MemAccess;
}

namespace xshmem::ibgda {

namespace gda = xshmem::dev::gda;

// What a model thread is doing in a call that may block (a driver copy to or from GPU memory, the
// GPU heap's operations): the model's watchdog (model_nic) names it when it lasts. One writer
// (the thread), one reader (the watchdog).
struct activity_t {
  std::atomic<const char *> what{nullptr};  // NULL: not in such a call
  std::atomic<uint64_t> since_ns{0};        // CLOCK_MONOTONIC
  std::atomic<int> peer{-1};                // the queue's target (requester), or -1
  std::atomic<uint32_t> pos{0};             // the entry's send-queue position (requester)
  // The thread's backend::t_driver_call (the driver call inside `what`), or NULL.
  const std::atomic<const char *> *driver_call = nullptr;
};
// The calling thread's record, or NULL (the model thread sets it; tests leave it NULL).
extern thread_local activity_t *t_activity;
// Marks the calling thread as doing `what` for its lifetime.
class doing {
 public:
  doing(const char *what, int peer = -1, uint32_t pos = 0);
  ~doing();
  doing(const doing &) = delete;
  doing &operator=(const doing &) = delete;
};

// Access rights of a registered region (IBV_ACCESS_* in spirit).
enum access_t : uint32_t {
  kAccessLocalWrite = 1,
  kAccessRemoteRead = 2,
  kAccessRemoteWrite = 4,
  kAccessRemoteAtomic = 8,
};

// A registered region: [addr, addr + length) of the owning process, under `key` (lkey = rkey).
struct mr_t {
  uint32_t key;
  uint64_t addr;
  uint64_t length;
  uint32_t access;
};

// One protection domain's translation table.
class key_table {
 public:
  // false: the key is taken.
  bool add(const mr_t &mr);
  bool remove(uint32_t key);
  const mr_t *find(uint32_t key) const;
  // 0 when [addr, addr + len) lies in the region of `key` and `need` is within its rights; else
  // the syndrome a NIC reports, and `why` says which check failed.
  uint8_t check(uint32_t key, uint64_t addr, uint64_t len, uint32_t need, bool remote,
                std::string *why) const;
  // How the NIC reaches the memory behind the table's keys: by default host memory (memcpy, the
  // CPU's atomics); with an access (common/mem_access.h) its copies and heap operations, on
  // `lane` (a GPU heap: driver copies, the core's heap_apply with the GPU's own atomics). Set
  // before the NIC runs; one thread uses the lane.
  void set_access(backend::MemAccess *access, void *lane) {
    access_ = access;
    lane_ = lane;
  }
  backend::MemAccess *access() const { return access_; }
  void *lane() const { return lane_; }

 private:
  std::vector<mr_t> mrs_;
  backend::MemAccess *access_ = nullptr;
  void *lane_ = nullptr;
};

// A decoded, validated send-queue entry.
struct op_t {
  uint8_t opcode = 0;
  uint16_t index = 0;
  uint8_t ds = 0;
  uint8_t fm_ce_se = 0;
  uint64_t raddr = 0;
  uint32_t rkey = 0;
  uint64_t laddr = 0;  // write: the source; read and atomics: where the data or old value land
  uint32_t lkey = 0;
  uint32_t length = 0;
  bool is_inline = false;
  uint8_t inline_data[gda::kMaxInline] = {};
  uint64_t swap_add = 0, compare = 0;
  bool signaled() const { return (fm_ce_se & gda::kCeCqUpdate) != 0; }
};

// The field of an entry that failed validation, and what was wrong with it.
struct fault_t {
  const char *field = "";
  std::string detail;
  uint8_t syndrome = 0;  // the CQE syndrome this fault completes with
};

// Decodes the entry at WQEBB position `pos` of a send queue of `nbb` WQEBBs (a power of two) that
// belongs to QP `qpn`: the entry must carry index pos & 0xFFFF, this qpn, a known opcode, a ds
// that matches it and fits the WQEBB, and lengths and alignment the opcode allows. false: `fault`
// names the field.
bool decode(const void *sq, uint32_t nbb, uint32_t pos, uint32_t qpn, op_t *op, fault_t *fault);

// A request on the wire from requester to responder, and the answer.
struct request_t {
  uint8_t opcode;
  uint64_t raddr;
  uint32_t rkey;
  uint32_t length;
  const uint8_t *data;  // write: the payload (length bytes)
  uint64_t swap_add, compare;
};
struct reply_t {
  uint8_t syndrome = 0;       // 0: done
  std::string why;            // with a syndrome: which check failed at the target
  uint64_t old = 0;           // atomics: the previous value
  std::vector<uint8_t> data;  // read: the bytes
};

// The responder: executes `rq` on this process's memory under the target's key table. Atomics are
// executed with host atomics on the target word (the model is the one agent for NIC atomics on
// that PE, docs/semantics.md).
reply_t execute(const key_table &keys, const request_t &rq);
// The checks execute makes before touching memory (the key, the range, the rights, an atomic's
// size and alignment, the opcode): 0, or the syndrome, with `why`.
uint8_t precheck(const key_table &keys, const request_t &rq, std::string *why);
// Requests that passed precheck, executed in order. With a memory access, all of them in one
// access apply call (a GPU heap: copies on one stream and runs of atomics as kernels, in order,
// one wait: a kernel launch and, where processes share a GPU, a time slice per batch instead of
// per request); out[i] gets request i's reply.
void execute_batch(const key_table &keys, const request_t *rqs, size_t n, reply_t *out);

// Writes the completion of entry `index` (success: syndrome 0) at producer position `pi` of a CQ
// of `ncqe` entries (a power of two), with the owner bit of that pass.
void write_cqe(gda::cqe_t *cq, uint32_t ncqe, uint32_t pi, uint16_t index, uint32_t qpn,
               uint8_t opcode, uint32_t byte_cnt, uint8_t syndrome);

// An entry taken from a send queue and not yet completed (issue -> answer -> retire).
struct inflight_t {
  uint32_t pos = 0;
  op_t op;
  bool remote = false;    // handed to the responder; waits for its answer
  bool answered = false;  // (remote) the answer came
  uint8_t syndrome = 0;   // the entry's outcome (0: done)
  std::string why;        // with a syndrome: which check failed, and where
};

// The requester side of one queue pair: send queue, its doorbell record, the CQ.
struct queue_t {
  void *sq = nullptr;                      // nbb WQEBBs
  uint32_t nbb = 0;                        // power of two
  const volatile uint32_t *dbr = nullptr;  // the send doorbell record (big-endian producer)
  gda::cqe_t *cq = nullptr;
  uint32_t ncqe = 0;  // power of two
  uint32_t qpn = 0;
  int pe = -1, peer = -1;            // owner and target, for reports
  const key_table *local = nullptr;  // the local key table issue() last used (answer's landing)
  // Where retire() publishes how many entries have completed (signaled or not; modulo 2^32), for
  // a host thread that waits on a queue other threads post into (a GPU's queue); or NULL.
  uint32_t *retired_out = nullptr;
  uint32_t tag = 0;  // the queue's number on the model's wire (model_nic)
  // Model state.
  uint32_t consumer = 0;             // next WQEBB position to take from the queue
  uint32_t cq_pi = 0;                // next CQE position
  std::vector<inflight_t> inflight;  // taken, not completed: in position order (a ring)
  size_t head = 0, count = 0;        // the ring's oldest entry and its size
  size_t unanswered = 0;             // inflight index (from head) of the oldest unanswered remote
  bool error = false;                // the queue is in error: later entries are flushed
  uint32_t error_pos = 0;            // (error) the position of the entry that failed
  std::string error_line;            // the first error, one line
};

// The producer count of q's doorbell record (positions modulo 2^16 the posters have published).
inline uint32_t producer(const queue_t &q) {
  return gda::be32(__atomic_load_n(q.dbr, __ATOMIC_ACQUIRE)) & 0xFFFF;
}

// Carries a request to the target's responder and returns its reply at once (tests: both ends
// in one process).
using send_fn = reply_t (*)(void *ctx, int peer, const request_t &rq);
// Hands a request to the wire for the target's responder; its reply comes back later, through
// answer(), in the order the queue's requests were posted. false: the wire takes nothing more
// now (the entry stays in the send queue for the next issue).
using post_fn = bool (*)(void *ctx, queue_t &q, const request_t &rq);

// Takes up to `max` posted entries (the doorbell record's producer) from q: decodes each, checks
// its local side against `local` (this PE's keys), and hands its remote side to `post`. Entries
// after the queue entered error are flushed, not sent. Returns the number taken.
uint32_t issue(queue_t &q, const key_table &local, post_fn post, void *ctx, uint32_t max);
// The answer to q's oldest unanswered remote entry: a read's data or an atomic's old value land
// in the entry's local buffer; a syndrome puts the queue into error (its line names the PE, the
// queue, the position, the entry and the syndrome).
void answer(queue_t &q, const reply_t &r);
// Completes q's oldest entries that are done, in position order (a CQE when signaled or failed;
// an entry after the one that failed completes flushed). Returns the number completed.
uint32_t retire(queue_t &q);

// Executes what is posted on q at once: issue with a `post` that calls `send` and answers, then
// retire (both ends in one thread: tests, and a failure stops the queue before the next entry is
// sent). Returns the number of entries consumed.
uint32_t progress(queue_t &q, const key_table &local, send_fn send, void *ctx, uint32_t max);

}  // namespace xshmem::ibgda

#endif  // XSHMEM_BACKENDS_IBGDA_NIC_MODEL_H
