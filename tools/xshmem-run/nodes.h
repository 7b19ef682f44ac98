// xshmem-run --nodes: "nodes" on one machine, each a network and a UTS namespace of its own.
//
// Node i gets host name xsn-<a+i>-<launcher pid> and its own loopback; with two nodes a veth pair
// joins them, named xsn0 in both, with 10.213.P.Q+1/30 in node a and 10.213.P.Q+2/30 in node b
// (P.Q from the launcher's pid). The namespaces have no names and no mounts: the launcher holds
// them by descriptor and the PEs by living in them, so they (and the veth pair with them) are
// gone once the launcher and the last PE have exited, however the launcher ended.
#pragma once

#include <string>
#include <vector>

namespace xshmem::run {

constexpr int kMaxNodes = 2;                // one veth pair: two nodes
constexpr const char *kNodeIface = "xsn0";  // the veth end's name, the same in every node

struct Node {
  int net_fd = -1, uts_fd = -1;  // /proc/self/ns/{net,uts} while inside it (close-on-exec)
  std::string host;              // its host name
  std::string addr;              // its address on the veth pair; 127.0.0.1 for a single node
};

class Nodes {
 public:
  Nodes() = default;
  Nodes(const Nodes &) = delete;
  Nodes &operator=(const Nodes &) = delete;
  ~Nodes();

  // Creates `count` nodes (1 or 2). On failure returns false with one line in *err.
  [[nodiscard]] bool create(int count, std::string *err);
  // Opens a TCP listener on node 0's address (port chosen by the kernel); returns the descriptor
  // (close-on-exec) and "addr:port" in *root, or -1 with *err.
  [[nodiscard]] int listen_on_node0(std::string *root, std::string *err);
  // In a forked child: moves the calling process into node i. Returns false with *err.
  [[nodiscard]] bool enter(int i, std::string *err) const;

  int count() const { return static_cast<int>(nodes_.size()); }
  const Node &node(int i) const { return nodes_[static_cast<size_t>(i)]; }

 private:
  [[nodiscard]] bool back_home(std::string *err);

  std::vector<Node> nodes_;
  int home_net_ = -1, home_uts_ = -1;
};

}  // namespace xshmem::run
