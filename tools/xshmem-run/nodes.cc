// xshmem-run --nodes: namespaces, the veth pair (rtnetlink) and addresses (ioctl). See nodes.h.
#include "nodes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xshmem::run {
namespace {

std::string errstr(const std::string &what) {
  return what + ": " + strerror(errno);
}

// An rtnetlink request built in place: attributes appended, nests closed by end_nest.
struct NlRequest {
  alignas(NLMSG_ALIGNTO) char buf[1024] = {};
  size_t len = 0;

  nlmsghdr *hdr() { return reinterpret_cast<nlmsghdr *>(buf); }
  void *put(const void *data, size_t n) {
    void *at = buf + len;
    if (data) memcpy(at, data, n);
    len += NLMSG_ALIGN(n);
    return at;
  }
  rtattr *attr(unsigned short type, const void *data, size_t n) {
    auto *a = static_cast<rtattr *>(put(nullptr, RTA_LENGTH(0)));
    a->rta_type = type;
    a->rta_len = static_cast<unsigned short>(RTA_LENGTH(n));
    if (n) memcpy(RTA_DATA(a), data, n);
    len += RTA_ALIGN(RTA_LENGTH(n)) - RTA_LENGTH(0);
    return a;
  }
  rtattr *begin_nest(unsigned short type) { return attr(type, nullptr, 0); }
  void end_nest(rtattr *a) {
    a->rta_len = static_cast<unsigned short>(buf + len - reinterpret_cast<char *>(a));
  }
};

// Creates the veth pair: `name` in the current network namespace, its peer `name` in the one of
// `peer_ns_fd`.
bool make_veth(const char *name, int peer_ns_fd, std::string *err) {
  NlRequest r;
  nlmsghdr *h = static_cast<nlmsghdr *>(r.put(nullptr, sizeof(nlmsghdr)));
  h->nlmsg_type = RTM_NEWLINK;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
  h->nlmsg_seq = 1;
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  r.put(&ifi, sizeof(ifi));
  r.attr(IFLA_IFNAME, name, strlen(name) + 1);
  rtattr *linkinfo = r.begin_nest(IFLA_LINKINFO);
  r.attr(IFLA_INFO_KIND, "veth", 5);
  rtattr *data = r.begin_nest(IFLA_INFO_DATA);
  rtattr *peer = r.begin_nest(VETH_INFO_PEER);
  r.put(&ifi, sizeof(ifi));
  r.attr(IFLA_IFNAME, name, strlen(name) + 1);
  uint32_t fd = static_cast<uint32_t>(peer_ns_fd);
  r.attr(IFLA_NET_NS_FD, &fd, sizeof(fd));
  r.end_nest(peer);
  r.end_nest(data);
  r.end_nest(linkinfo);
  r.hdr()->nlmsg_len = static_cast<uint32_t>(r.len);

  int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (s < 0) {
    *err = errstr("netlink socket");
    return false;
  }
  timeval tv{5, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  bool ok = false;
  if (sendto(s, r.buf, r.len, 0, reinterpret_cast<sockaddr *>(&kernel), sizeof(kernel)) !=
      static_cast<ssize_t>(r.len)) {
    *err = errstr("sending the veth request (RTM_NEWLINK)");
  } else {
    alignas(NLMSG_ALIGNTO) char reply[4096];
    ssize_t n = recv(s, reply, sizeof(reply), 0);
    const auto *rh = reinterpret_cast<const nlmsghdr *>(reply);
    if (n < 0) {
      *err = errstr("waiting for the kernel's answer to the veth request");
    } else if (!NLMSG_OK(rh, static_cast<size_t>(n)) || rh->nlmsg_type != NLMSG_ERROR) {
      *err = "unexpected answer to the veth request (type " + std::to_string(rh->nlmsg_type) + ")";
    } else {
      int code = -static_cast<const nlmsgerr *>(NLMSG_DATA(rh))->error;
      if (code == 0)
        ok = true;
      else
        *err = std::string("creating the veth pair ") + name + " failed: " + strerror(code) +
               (code == EOPNOTSUPP ? " (is the veth kernel module available?)" : "");
    }
  }
  close(s);
  return ok;
}

// Turns IPv6 off on `ifname` in the current network namespace (/proc/sys/net follows the
// opener's namespace). A veth gets an IPv6 link-local address (fe80::) some time after it is up;
// libfabric's tcp provider may then publish that address, and a peer's connect() to it fails with
// EINVAL (a link-local address needs a scope id): the job died at its first remote put when the
// address happened to be ready first. The nodes talk IPv4 (their /30). A kernel without IPv6
// has nothing to turn off.
void ipv6_off(const char *ifname) {
  const std::string path = std::string("/proc/sys/net/ipv6/conf/") + ifname + "/disable_ipv6";
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  if (write(fd, "1", 1) != 1) {
    // Nothing else to do: the address may then appear, as it did before.
  }
  close(fd);
}

// Sets `ifname` up in the current network namespace, with `addr`/`prefix` when addr is given.
bool iface_up(const char *ifname, const char *addr, int prefix, std::string *err) {
  if (strcmp(ifname, "lo") != 0) ipv6_off(ifname);
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) {
    *err = errstr("socket for interface setup");
    return false;
  }
  ifreq ifr{};
  strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
  bool ok = true;
  if (addr) {
    auto *sin = reinterpret_cast<sockaddr_in *>(&ifr.ifr_addr);
    sin->sin_family = AF_INET;
    inet_pton(AF_INET, addr, &sin->sin_addr);
    if (ioctl(s, SIOCSIFADDR, &ifr) != 0) {
      *err = errstr(std::string("setting ") + ifname + " address " + addr);
      ok = false;
    }
    sin->sin_addr.s_addr = htonl(prefix == 0 ? 0 : ~0u << (32 - prefix));
    if (ok && ioctl(s, SIOCSIFNETMASK, &ifr) != 0) {
      *err = errstr(std::string("setting ") + ifname + " netmask /" + std::to_string(prefix));
      ok = false;
    }
  }
  if (ok && ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
    *err = errstr(std::string("reading ") + ifname + "'s flags");
    ok = false;
  }
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (ok && ioctl(s, SIOCSIFFLAGS, &ifr) != 0) {
    *err = errstr(std::string("setting ") + ifname + " up");
    ok = false;
  }
  close(s);
  return ok;
}

// Waits until `ifname` in the current network namespace reports IFF_RUNNING (carrier). The kernel
// sets it asynchronously after both ends of a veth are up (linkwatch, up to a second later), and
// libfabric's socket providers list only running interfaces: a PE started before then found only
// lo, published 127.0.0.1, and the other node's connects to it failed.
bool wait_running(const char *ifname, std::string *err) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) {
    *err = errstr("socket for interface setup");
    return false;
  }
  ifreq ifr{};
  strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
  bool running = false;
  for (int i = 0; i < 1000 && !running; ++i) {  // 10 s
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) break;
    running = (ifr.ifr_flags & IFF_RUNNING) != 0;
    if (!running) usleep(10000);
  }
  close(s);
  if (!running) *err = std::string(ifname) + " did not come up (no carrier after 10 s)";
  return running;
}

int open_ns(const char *kind) {
  return open((std::string("/proc/self/ns/") + kind).c_str(), O_RDONLY | O_CLOEXEC);
}

}  // namespace

Nodes::~Nodes() {
  for (Node &n : nodes_) {
    if (n.net_fd >= 0) close(n.net_fd);
    if (n.uts_fd >= 0) close(n.uts_fd);
  }
  if (home_net_ >= 0) close(home_net_);
  if (home_uts_ >= 0) close(home_uts_);
}

bool Nodes::back_home(std::string *err) {
  if (setns(home_net_, CLONE_NEWNET) != 0 || setns(home_uts_, CLONE_NEWUTS) != 0) {
    *err = errstr("returning to the launcher's own namespaces");
    return false;
  }
  return true;
}

bool Nodes::create(int count, std::string *err) {
  home_net_ = open_ns("net");
  home_uts_ = open_ns("uts");
  if (home_net_ < 0 || home_uts_ < 0) {
    *err = errstr("cannot open /proc/self/ns/{net,uts}");
    return false;
  }
  const unsigned pid = static_cast<unsigned>(getpid());
  // 10.213.P.Q/30 with P.Q from the pid: a run's addresses name it (the namespaces keep
  // concurrent runs apart anyway).
  const unsigned third = (pid >> 6) & 0xff, base = (pid & 63u) << 2;
  for (int i = 0; i < count; ++i) {
    Node n;
    n.host = std::string("xsn-") + static_cast<char>('a' + i) + "-" + std::to_string(pid);
    if (count == 1)
      n.addr = "127.0.0.1";
    else
      n.addr = "10.213." + std::to_string(third) + "." + std::to_string(base + 1 + i);
    if (unshare(CLONE_NEWNET | CLONE_NEWUTS) != 0) {
      *err = errstr(std::string("cannot create the network and UTS namespaces of node ") + n.host +
                    " (needs root: CAP_SYS_ADMIN and CAP_NET_ADMIN)");
      return false;
    }
    bool ok = true;
    if (sethostname(n.host.data(), n.host.size()) != 0) {
      *err = errstr("sethostname " + n.host);
      ok = false;
    }
    n.net_fd = open_ns("net");
    n.uts_fd = open_ns("uts");
    if (ok && (n.net_fd < 0 || n.uts_fd < 0)) {
      *err = errstr("cannot open node " + n.host + "'s /proc/self/ns/{net,uts}");
      ok = false;
    }
    if (ok) ok = iface_up("lo", nullptr, 0, err);
    nodes_.push_back(n);
    if (!back_home(err) || !ok) return false;
  }
  if (count == 2) {
    if (setns(nodes_[0].net_fd, CLONE_NEWNET) != 0) {
      *err = errstr("entering node " + nodes_[0].host + "'s network namespace");
      return false;
    }
    bool ok = make_veth(kNodeIface, nodes_[1].net_fd, err) &&
              iface_up(kNodeIface, nodes_[0].addr.c_str(), 30, err);
    if (ok && setns(nodes_[1].net_fd, CLONE_NEWNET) != 0) {
      *err = errstr("entering node " + nodes_[1].host + "'s network namespace");
      ok = false;
    }
    if (ok) ok = iface_up(kNodeIface, nodes_[1].addr.c_str(), 30, err);
    if (ok) ok = wait_running(kNodeIface, err);
    if (ok && setns(nodes_[0].net_fd, CLONE_NEWNET) != 0) {
      *err = errstr("entering node " + nodes_[0].host + "'s network namespace");
      ok = false;
    }
    if (ok) ok = wait_running(kNodeIface, err);
    if (!back_home(err) || !ok) return false;
  }
  return true;
}

int Nodes::listen_on_node0(std::string *root, std::string *err) {
  if (setns(nodes_[0].net_fd, CLONE_NEWNET) != 0) {
    *err = errstr("entering node " + nodes_[0].host + "'s network namespace");
    return -1;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, nodes_[0].addr.c_str(), &a.sin_addr);
  socklen_t alen = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0 ||
      listen(fd, SOMAXCONN) != 0 || getsockname(fd, reinterpret_cast<sockaddr *>(&a), &alen) != 0) {
    *err =
        errstr("cannot listen on " + nodes_[0].addr + " in node " + nodes_[0].host + " for rank 0");
    if (fd >= 0) close(fd);
    fd = -1;
  }
  if (!back_home(err)) {
    if (fd >= 0) close(fd);
    return -1;
  }
  if (fd >= 0) *root = nodes_[0].addr + ":" + std::to_string(ntohs(a.sin_port));
  return fd;
}

bool Nodes::enter(int i, std::string *err) const {
  const Node &n = nodes_[static_cast<size_t>(i)];
  if (setns(n.net_fd, CLONE_NEWNET) != 0 || setns(n.uts_fd, CLONE_NEWUTS) != 0) {
    *err = errstr("cannot enter node " + n.host + "'s namespaces");
    return false;
  }
  return true;
}

}  // namespace xshmem::run
