// The software NIC model of one PE (XSHMEM_IBGDA_NIC=model), as the ibgda transport runs it: one
// thread that is this PE's NIC, the requester of its send queues and the responder to its peers'
// requests. The two ends of a queue pair meet over TCP (the model's wire), so PEs on different
// hosts (the two-node harness) reach each other as they would over a fabric:
//
//   - every PE listens on one address (XSHMEM_IBGDA_MODEL_IFACE's, loopback on one host) and
//     connects to each peer it has queues to; a connection starts with a hello that carries the
//     job token (a stranger is refused with one line) and the PE number;
//   - the requester takes what posters publish (nic_model.h issue), sends each entry's remote
//     side as a request frame over the connection to its target, and completes the entries in
//     order as their answers come back (answer, retire): writes are pipelined, as on a NIC;
//   - the responder executes each request against this PE's key table in arrival order (one
//     thread: every NIC operation on this PE's memory is applied by it, docs/semantics.md
//     "Atomicity across paths") and answers it. After a failed request of a queue it flushes that
//     queue's later requests without executing them, as an RC responder in error does.
//
// A queue that enters error, or a connection that breaks while entries wait on it, is reported
// once through on_error (the transport stops the job with the line). Every wait has a deadline.
#ifndef XSHMEM_BACKENDS_IBGDA_MODEL_NIC_H
#define XSHMEM_BACKENDS_IBGDA_MODEL_NIC_H

#include <stdint.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nic_model.h"

namespace xshmem::ibgda {

class model_nic {
 public:
  struct options {
    int my_pe = -1;
    int n_pes = 0;
    std::string token;      // the job token every connection presents
    int timeout_ms = 5000;  // connect and hello deadlines
    // A queue entered error, or a connection broke under waiting entries: one line.
    std::function<void(const std::string &)> on_error;
    // Anything else worth a log line (a refused stranger, a peer's connection closing).
    std::function<void(bool warning, const std::string &)> log;
    // How long requests may wait for an answer while none comes before the peer counts as dead
    // (its entries fail, the queues enter error); 0: no limit.
    int answer_timeout_ms = 0;
    // Test hook (XSHMEM_IBGDA_TEST_CORRUPT): the NIC corrupts the entry it takes as its
    // corrupt_at-th (from 1, over every queue) before decoding it, the way a broken poster
    // would have written it: kCorruptOpcode an unknown opcode, kCorruptLength a zero byte count
    // (the first RDMA write or read from then on), kCorruptKey a remote key nobody registered.
    int corrupt = 0;
    uint64_t corrupt_at = 0;
    // A call of the thread that may block (a driver copy, the GPU heap's operations) lasting
    // this long gets a warning naming it (the watchdog); 0: no watchdog.
    int stall_warn_ms = 3000;
  };
  enum : int { kCorruptNone = 0, kCorruptOpcode = 1, kCorruptLength = 2, kCorruptKey = 3 };

  explicit model_nic(options o);
  ~model_nic();
  model_nic(const model_nic &) = delete;
  model_nic &operator=(const model_nic &) = delete;

  // Listens on IPv4 address `addr` (an ephemeral port). false: *why says why.
  bool listen(const std::string &addr, std::string *why);
  uint16_t port() const { return port_; }

  // The key tables: `local` for the requester's local side, `target` for the responder. Set
  // before start; not changed while the thread runs.
  key_table &local_keys() { return local_; }
  key_table &target_keys() { return target_; }

  // Starts the thread (it accepts peers' connections from then on).
  void start();
  // Connects to `peer` listening at addr:port and presents the token (blocking, bounded by the
  // deadline). false: *why says why.
  bool connect(int peer, const std::string &addr, uint16_t port, std::string *why);
  // Adds a send queue to its q->peer (connected first); the thread takes it up at its next turn.
  void add_queue(queue_t *q);
  // The job's last operation is done: a connection that closes from now on is no error.
  void quiescing() { stopping_.store(true); }
  // Stops the thread and closes every connection.
  void stop();

 private:
  struct conn;
  void run();
  bool serve_frames(conn &c);
  void broken(conn &c, const std::string &why);
  static bool post(void *ctx, queue_t &q, const request_t &rq);

  options o_;
  key_table local_, target_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false}, stopping_{false};
  // The watchdog: names a call of the thread that lasts (activity_t), once per call.
  activity_t activity_;
  std::thread watchdog_;
  std::mutex watch_mu_;
  std::condition_variable watch_cv_;
  bool watch_stop_ = false;
  void watch();
  std::mutex mu_;  // guards the pending lists
  std::vector<std::unique_ptr<conn>> pending_conns_;
  std::vector<queue_t *> pending_queues_;
  // The thread's own.
  std::vector<std::unique_ptr<conn>> conns_;
  std::vector<queue_t *> queues_;
  std::vector<conn *> to_peer_;  // [pe]: the requester connection to pe
  std::vector<char> reported_;   // [queue index]: its error was reported
  // The requests of one serve_frames pass, executed together (nic_model.h execute_batch).
  struct pending_t {
    uint32_t qtag;
    request_t rq;
    uint8_t syndrome;  // failed its checks, or flushed: not executed
    std::string why;
  };
  std::vector<pending_t> batch_;
  // Per queue: the position the thread last saw it stop at, since when, whether it was named.
  struct stuck_t {
    uint32_t consumer = 0;
    uint64_t since_ns = 0;
    bool named = false;
  };
  std::vector<stuck_t> stuck_;
  uint64_t last_scan_ns_ = 0;
  uint64_t taken_ = 0;             // entries seen so far (the corruption hook counts them)
  std::vector<uint32_t> scanned_;  // [queue tag]: the hook's next position to look at
  void corrupt_next(queue_t &q);
};

}  // namespace xshmem::ibgda

#endif  // XSHMEM_BACKENDS_IBGDA_MODEL_NIC_H
