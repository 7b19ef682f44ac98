// The topology module against the hwloc XML fixtures of this folder (see gen_fixtures.py for what
// each machine is) and against the live machine.
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include <chrono>
#include <fstream>
#include <sstream>

#include "../catch_compat.h"
#include "big_fixture.h"
#include "fake_model.h"
#include "topology.h"

using namespace xshmem::topo;

namespace {

Machine load(const char *name) {
  Machine m;
  std::string err;
  const std::string path = std::string(XT_TOPO_DIR) + "/" + name;
  INFO("loading " << path);
  REQUIRE(load_xml(path, &m, &err));
  CHECK(err.empty());
  return m;
}

// Sets an environment variable for one scope and restores the old value.
class Env {
 public:
  Env(const char *name, const char *value) : name_(name) {
    if (const char *old = getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~Env() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char *name_;
  std::optional<std::string> old_;
};

// The DGX-like fixture's layout: switch s (0..3) owns buses 0x20*(s+1) ..; on it GPU 2s, GPU
// 2s+1, mlx5_2s, mlx5_2s+1 sit on buses base+3 .. base+6.
std::string dgx_gpu_bus(int g) {
  char b[32];
  snprintf(b, sizeof(b), "0000:%02x:00.0", 0x20 * (g / 2 + 1) + 3 + g % 2);
  return b;
}
std::string dgx_nic_bus(int n) {
  char b[32];
  snprintf(b, sizeof(b), "0000:%02x:00.0", 0x20 * (n / 2 + 1) + 5 + n % 2);
  return b;
}
// Same switch: PIX; same socket (switches 0,1 or 2,3), other host bridge: NODE; else SYS.
PathClass dgx_class(int a_switch, int b_switch) {
  if (a_switch == b_switch) return PathClass::kPIX;
  return a_switch / 2 == b_switch / 2 ? PathClass::kNODE : PathClass::kSYS;
}

const std::string kArrow = " \xe2\x86\x92 ";

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to a fresh temporary file and returns its path (removed by the caller).
std::string temp_xml(const std::string &text) {
  char tmpl[] = "/tmp/xt_topo_XXXXXX";
  const int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  return tmpl;
}

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size()))
    s.replace(i, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("dgx: GPUs, NICs, NUMA nodes and links", "[topo_dgx]") {
  const Machine m = load("dgx8.xml");
  CHECK(m.host == "dgx-h100-like");
  CHECK(m.origin.find("dgx8.xml") != std::string::npos);
  REQUIRE(m.numa.size() == 2);
  CHECK(m.numa[0].cpuset == "0-7");
  CHECK(m.numa[1].cpuset == "8-15");
  CHECK(m.numa[1].memory_bytes == (1ull << 40));
  CHECK(m.packages.size() == 2);
  REQUIRE(m.gpus.size() == 8);
  REQUIRE(m.nics.size() == 8);
  for (int g = 0; g < 8; ++g) {
    INFO("gpu " << g);
    CHECK(m.gpus[g].index == g);
    CHECK(m.gpus[g].bus_id == dgx_gpu_bus(g));
    CHECK(m.gpus[g].name == "NVIDIA H100 80GB HBM3");
    CHECK(m.gpus[g].numa_node == g / 4);
    CHECK(m.gpus[g].cpuset == (g < 4 ? "0-7" : "8-15"));
    CHECK(m.gpus[g].cuda_ordinal == -1);  // a recorded machine: no CUDA probe
    CHECK(m.gpus[g].pci_path.find("host bridge") == 0);
    for (int h = 0; h < 8; ++h) {
      INFO("peer gpu " << h);
      const GpuLink &l = m.gpu_gpu[g][h];
      CHECK(l.pci == (g == h ? PathClass::kSelf : dgx_class(g / 2, h / 2)));
      CHECK(l.nvlinks == (g == h ? 0 : 18));
      CHECK(l.p2p);
      CHECK(l.source == (g == h ? "self" : "hwloc"));
    }
    for (int n = 0; n < 8; ++n) {
      INFO("nic " << n);
      CHECK(m.gpu_nic[g][n] == dgx_class(g / 2, n / 2));
    }
  }
  for (int n = 0; n < 8; ++n) {
    INFO("nic " << n);
    const Nic &nic = m.nics[n];
    CHECK(nic.name == "mlx5_" + std::to_string(n));
    CHECK(nic.bus_id == dgx_nic_bus(n));
    CHECK(nic.numa_node == n / 4);
    CHECK(nic.mlx5());
    REQUIRE(nic.ports.size() == 1);
    CHECK(nic.ports[0].state == "ACTIVE");
    CHECK(nic.ports[0].link_layer == LinkLayer::kInfiniBand);
    CHECK(nic.ports[0].speed_gbps == 400);
    for (int o = 0; o < 8; ++o)
      CHECK(m.nic_nic[n][o] == (n == o ? PathClass::kSelf : dgx_class(n / 2, o / 2)));
  }
}

TEST_CASE("dgx: NIC per GPU, balanced over the two PIX NICs of each switch", "[topo_dgx]") {
  const Machine m = load("dgx8.xml");
  std::vector<std::string> skipped;
  const auto c = nic_per_gpu(m, parse_nic_filter(""), &skipped);
  CHECK(skipped.empty());
  REQUIRE(c.size() == 8);
  for (int g = 0; g < 8; ++g) {
    INFO("gpu " << g);
    CHECK(c[g].nic == g);
    CHECK(c[g].cls == PathClass::kPIX);
    CHECK(c[g].port == 1);
    CHECK(c[g].reason == "mlx5_" + std::to_string(g) + " (PIX)");
  }
}

TEST_CASE("dgx: NIC allow-list, exclusion and down ports", "[topo_dgx]") {
  Machine m = load("dgx8.xml");
  SECTION("allow mlx5_0,mlx5_1: PIX for GPUs 0,1, then the less loaded of the two") {
    const auto c = nic_per_gpu(m, parse_nic_filter("mlx5_0,mlx5_1"));
    // GPUs 0,1 PIX; 2,3 NODE and 4..7 SYS to both, alternating by load then index.
    const int want[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    const PathClass cls[8] = {PathClass::kPIX, PathClass::kPIX, PathClass::kNODE, PathClass::kNODE,
                              PathClass::kSYS, PathClass::kSYS, PathClass::kSYS,  PathClass::kSYS};
    for (int g = 0; g < 8; ++g) {
      INFO("gpu " << g);
      CHECK(c[g].nic == want[g]);
      CHECK(c[g].cls == cls[g]);
    }
  }
  SECTION("^mlx5_0 excludes: GPU 0 shares mlx5_1 with GPU 1") {
    std::vector<std::string> skipped;
    const auto c = nic_per_gpu(m, parse_nic_filter("^mlx5_0"), &skipped);
    CHECK(c[0].nic == 1);
    CHECK(c[1].nic == 1);
    for (int g = 2; g < 8; ++g) CHECK(c[g].nic == g);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "mlx5_0: excluded by the NIC list");
  }
  SECTION("a port named: mlx5_3:1 allows, mlx5_3:2 does not") {
    CHECK(parse_nic_filter("mlx5_3:1").allows("mlx5_3", 1));
    CHECK_FALSE(parse_nic_filter("mlx5_3:2").allows("mlx5_3", 1));
    CHECK_FALSE(parse_nic_filter("mlx5_3:1").allows("mlx5_4", 1));
    CHECK(parse_nic_filter("^mlx5_3:2").allows("mlx5_3", 1));
    const auto c = nic_per_gpu(m, parse_nic_filter("mlx5_3:1"));
    for (int g = 0; g < 8; ++g) CHECK(c[g].nic == 3);
    const auto none = nic_per_gpu(m, parse_nic_filter("mlx5_3:2"));
    for (int g = 0; g < 8; ++g) CHECK(none[g].nic == -1);
  }
  SECTION("a port that is down is skipped with the reason") {
    m.nics[1].ports[0].state = "DOWN";
    m.nics[6].ports[0].state = "INIT";
    std::vector<std::string> skipped;
    const auto c = nic_per_gpu(m, parse_nic_filter(""), &skipped);
    REQUIRE(skipped.size() == 2);
    CHECK(skipped[0] == "mlx5_1: port 1 DOWN, skipped");
    CHECK(skipped[1] == "mlx5_6: port 1 INIT, skipped");
    CHECK(c[0].nic == 0);
    CHECK(c[1].nic == 0);
    CHECK(c[6].nic == 7);
    CHECK(c[7].nic == 7);
    for (int g : {2, 3, 4, 5}) CHECK(c[g].nic == g);
  }
}

TEST_CASE("dgx: plan for 8 PEs per node on 2 nodes", "[topo_dgx]") {
  const Machine m = load("dgx8.xml");
  const Plan p = plan({m}, 8, 2, PlanOptions{}, fake::model());
  INFO(plan_text(p));
  REQUIRE(p.ok());
  REQUIRE(p.pes.size() == 16);
  for (int pe = 0; pe < 16; ++pe) {
    INFO("pe " << pe);
    CHECK(p.pes[pe].node == pe / 8);
    CHECK(p.pes[pe].local_rank == pe % 8);
    CHECK(p.pes[pe].gpu == pe % 8);
    CHECK(p.pes[pe].nic_name == "mlx5_" + std::to_string(pe % 8));
    CHECK(p.pes[pe].nic_reason == "nearest: mlx5_" + std::to_string(pe % 8) + " (PIX)");
  }
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      INFO("pair " << a << " -> " << b);
      const PairPlan &r = p.pairs[a][b];
      if (a / 8 == b / 8) {
        CHECK(r.transport == fake::kNvlink);
        CHECK(r.why == (a == b ? "nvlink: same GPU " + std::to_string(a % 8)
                               : "nvlink: GPUs " + std::to_string(a % 8) + "," +
                                     std::to_string(b % 8) + " NV18"));
      } else {
        CHECK(r.transport == fake::kIbgda);
        CHECK(r.why == "ibgda: mlx5_" + std::to_string(a % 8) + kArrow + "mlx5_" +
                           std::to_string(b % 8) + " (PIX/PIX)");
      }
    }
  }
}

TEST_CASE("dgx: 16 PEs per node share GPUs; a NIC map overrides the nearest NIC", "[topo_dgx]") {
  const Machine m = load("dgx8.xml");
  PlanOptions o;
  o.nic_map = {{3, "mlx5_7"}, {11, "mlx5_0"}};
  const Plan p = plan({m}, 8, 2, o, fake::model());
  INFO(plan_text(p));
  REQUIRE(p.ok());
  CHECK(p.pes[3].nic_name == "mlx5_7");
  CHECK(p.pes[3].nic_reason == "mapped: mlx5_7");
  CHECK(p.pairs[3][11].why == "ibgda: mlx5_7" + kArrow + "mlx5_0 (SYS/NODE)");
  CHECK(p.pairs[3][12].why == "ibgda: mlx5_7" + kArrow + "mlx5_4 (SYS/PIX)");

  const Plan shared = plan({m}, 16, 1, PlanOptions{}, fake::model());
  REQUIRE(shared.ok());
  for (int pe = 0; pe < 16; ++pe) CHECK(shared.pes[pe].gpu == pe % 8);
  CHECK(shared.pairs[2][10].why == "nvlink: same GPU 2");
  CHECK(shared.pairs[2][11].why == "nvlink: GPUs 2,3 NV18");

  PlanOptions bad;
  bad.nic_map = {{5, "mlx5_9"}};
  const Plan pb = plan({m}, 8, 1, bad, fake::model());
  REQUIRE(pb.errors.size() == 1);
  CHECK(pb.errors[0] == "plan: the NIC map gives pe 5 NIC \"mlx5_9\", which node 0 lacks");
}

TEST_CASE("dgx: transport lists and the remote transport", "[topo_dgx]") {
  Machine m = load("dgx8.xml");
  SECTION("^nvlink: node peers go through the NIC (ibgda loopback)") {
    const Plan p = plan({m}, 8, 1, PlanOptions{},
                        fake::model(fake::allow({fake::kHostshm, fake::kIbgda, fake::kLibfabric})));
    REQUIRE(p.ok());
    CHECK(p.pairs[0][1].transport == fake::kIbgda);
    CHECK(p.pairs[0][1].why ==
          "ibgda: mlx5_0" + kArrow + "mlx5_1 (PIX/PIX), same node through the NIC");
  }
  SECTION("nvlink only: other nodes are unreachable, with the reason") {
    const Plan p = plan({m}, 8, 2, PlanOptions{}, fake::model(fake::allow({fake::kNvlink})));
    CHECK_FALSE(p.ok());
    CHECK(p.pairs[0][1].transport == fake::kNvlink);
    CHECK(p.pairs[0][8].transport == fake::kNone);
    CHECK(p.pairs[0][8].why == "none: no remote transport (ibgda, libfabric) allowed");
    REQUIRE(p.errors.size() == 5);  // four pairs named, then a count
    CHECK(p.errors[0] ==
          "no transport reaches pe 8 from pe 0: no remote transport (ibgda, "
          "libfabric) allowed");
    CHECK(p.errors[4] == "... and " + std::to_string(2 * 64 - 4) + " more unreachable pairs");
  }
  SECTION("libfabric requested without a provider: none, never a silent fallback to ibgda") {
    const Plan p = plan(
        {m}, 8, 2, PlanOptions{},
        fake::model(fake::allow({fake::kNvlink, fake::kHostshm, fake::kIbgda, fake::kLibfabric},
                                fake::kLibfabric)));
    CHECK_FALSE(p.ok());
    CHECK(p.pairs[2][9].transport == fake::kNone);
    CHECK(p.pairs[2][9].why ==
          "none: libfabric: no libfabric provider on node 0 (requested as the remote transport)");
  }
  SECTION("libfabric with providers: the domain on the PE's NIC") {
    for (int n = 0; n < 8; ++n)
      m.domains.push_back({"verbs;ofi_rxm", "mlx5_" + std::to_string(n), dgx_nic_bus(n)});
    m.domains.push_back({"shm", "shm", ""});
    m.domains.push_back({"tcp", "lo", ""});
    const Plan p = plan(
        {m}, 8, 2, PlanOptions{},
        fake::model(fake::allow({fake::kNvlink, fake::kHostshm, fake::kIbgda, fake::kLibfabric},
                                fake::kLibfabric)));
    REQUIRE(p.ok());
    CHECK(p.pairs[2][13].transport == fake::kLibfabric);
    CHECK(p.pairs[2][13].why == "libfabric: verbs;ofi_rxm mlx5_2" + kArrow + "mlx5_5");
  }
  SECTION("bad layouts are errors") {
    CHECK(plan({m}, 0, 1, PlanOptions{}, fake::model()).errors.size() == 1);
    CHECK(plan({m, m, m}, 8, 2, PlanOptions{}, fake::model()).errors.size() == 1);
  }
}

TEST_CASE("pcie4: no NVLink, P2P within a switch, the NIC for the rest", "[topo_pcie]") {
  const Machine m = load("pcie4.xml");
  CHECK(m.host == "pcie4");
  REQUIRE(m.numa.size() == 1);
  REQUIRE(m.gpus.size() == 4);
  REQUIRE(m.nics.size() == 1);
  const char *bus[] = {"0000:23:00.0", "0000:24:00.0", "0000:43:00.0", "0000:44:00.0"};
  for (int g = 0; g < 4; ++g) {
    INFO("gpu " << g);
    CHECK(m.gpus[g].bus_id == bus[g]);
    CHECK(m.gpus[g].name == "NVIDIA L40S");
    CHECK(m.gpus[g].pci_device == 0x26b9);
    CHECK(m.gpus[g].numa_node == 0);
    for (int h = 0; h < 4; ++h) {
      const GpuLink &l = m.gpu_gpu[g][h];
      const bool same_switch = g / 2 == h / 2;
      CHECK(l.nvlinks == 0);
      CHECK(l.pci == (g == h        ? PathClass::kSelf
                      : same_switch ? PathClass::kPIX
                                    : PathClass::kNODE));
      CHECK(l.p2p == same_switch);
      CHECK(l.source == (g == h ? "self" : "pci"));
    }
    CHECK(m.gpu_nic[g][0] == (g < 2 ? PathClass::kPIX : PathClass::kNODE));
  }
  CHECK(m.nics[0].name == "mlx5_0");
  CHECK(m.nics[0].bus_id == "0000:25:00.0");
  REQUIRE(m.nics[0].ports.size() == 1);
  CHECK(m.nics[0].ports[0].link_layer == LinkLayer::kEthernet);
  CHECK(m.nics[0].ports[0].speed_gbps == 200);

  const auto c = nic_per_gpu(m, parse_nic_filter(""));
  for (int g = 0; g < 4; ++g) {
    CHECK(c[g].nic == 0);
    CHECK(c[g].cls == (g < 2 ? PathClass::kPIX : PathClass::kNODE));
  }

  const Plan p = plan({m}, 4, 1, PlanOptions{}, fake::model());
  INFO(plan_text(p));
  REQUIRE(p.ok());
  CHECK(p.pairs[0][1].why == "nvlink: GPUs 0,1 PCIe P2P (PIX)");
  CHECK(p.pairs[3][2].why == "nvlink: GPUs 3,2 PCIe P2P (PIX)");
  CHECK(p.pairs[1][2].transport == fake::kIbgda);
  CHECK(p.pairs[1][2].why ==
        "ibgda: mlx5_0" + kArrow + "mlx5_0 (PIX/NODE), same node through the NIC");

  PlanOptions local;
  const Plan pl = plan({m}, 4, 1, local, fake::model(fake::allow({fake::kNvlink, fake::kHostshm})));
  CHECK_FALSE(pl.ok());
  CHECK(pl.pairs[0][2].transport == fake::kNone);
  CHECK(pl.pairs[0][2].why ==
        "none: nvlink: GPUs 0,2 have no peer access (NODE, pci); no NIC transport allowed");
  CHECK(pl.pairs[0][1].transport == fake::kNvlink);

  PlanOptions host;
  host.host_heap = true;
  const Plan ph = plan({m}, 4, 1, host, fake::model());
  REQUIRE(ph.ok());
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) CHECK(ph.pairs[a][b].transport == fake::kHostshm);
}

TEST_CASE("cpu-only: two NUMA nodes, no GPU, no NIC: hostshm", "[topo_cpu]") {
  const Machine m = load("cpu2numa.xml");
  REQUIRE(m.numa.size() == 2);
  CHECK(m.numa[0].os_index == 0);
  CHECK(m.numa[0].cpuset == "0-3");
  CHECK(m.numa[1].cpuset == "4-7");
  REQUIRE(m.packages.size() == 2);
  CHECK(m.packages[1].model == "Intel(R) Xeon(R) Platinum 8480C");
  CHECK(m.gpus.empty());
  CHECK(m.nics.empty());
  CHECK(nic_per_gpu(m, parse_nic_filter("")).empty());
  CHECK(matrix_text(m) == "no GPU and no RDMA NIC on cpu-only\n");

  const Plan p = plan({m}, 4, 1, PlanOptions{}, fake::model());
  INFO(plan_text(p));
  REQUIRE(p.ok());
  for (int a = 0; a < 4; ++a) {
    CHECK(p.pes[a].gpu == -1);
    CHECK(p.pes[a].nic == -1);
    CHECK(p.pes[a].nic_reason == "no NIC on this machine");
    for (int b = 0; b < 4; ++b) {
      CHECK(p.pairs[a][b].transport == fake::kHostshm);
      CHECK(p.pairs[a][b].why ==
            (a == b ? "hostshm: itself, CPU PE" : "hostshm: same host, CPU PEs"));
    }
  }
  const Plan two = plan({m}, 2, 2, PlanOptions{}, fake::model());
  CHECK_FALSE(two.ok());
  CHECK(two.pairs[1][2].why ==
        "none: ibgda: pe 1 has no usable NIC; libfabric: no libfabric provider on node 0");
  PlanOptions no_shm;
  const Plan ns = plan({m}, 2, 1, no_shm,
                       fake::model(fake::allow({fake::kNvlink, fake::kIbgda, fake::kLibfabric})));
  CHECK(ns.pairs[0][1].why ==
        "none: hostshm (same host, CPU PEs) is not allowed; ibgda: pe 0 has no usable NIC; "
        "libfabric: no libfabric provider on node 0");
}

TEST_CASE("two nodes: one machine per node, NVLink inside, ibgda across", "[topo_2node]") {
  const std::vector<Machine> ms = {load("node2gpu-a0.xml"), load("node2gpu-a1.xml")};
  CHECK(ms[0].host == "node2gpu-a0");
  CHECK(ms[1].host == "node2gpu-a1");
  for (const Machine &m : ms) {
    REQUIRE(m.gpus.size() == 2);
    REQUIRE(m.nics.size() == 1);
    CHECK(m.gpu_gpu[0][1].nvlinks == 4);
    CHECK(m.gpu_gpu[1][0].nvlinks == 4);
    CHECK(m.gpu_nic[0][0] == PathClass::kPIX);
    CHECK(m.gpu_nic[1][0] == PathClass::kPIX);
  }
  CHECK(ms[0].nics[0].node_guid != ms[1].nics[0].node_guid);

  const Plan p = plan(ms, 2, 2, PlanOptions{}, fake::model());
  INFO(plan_text(p));
  REQUIRE(p.ok());
  const char *want[4][4] = {
      {"nvlink: same GPU 0", "nvlink: GPUs 0,1 NV4", "ibgda", "ibgda"},
      {"nvlink: GPUs 1,0 NV4", "nvlink: same GPU 1", "ibgda", "ibgda"},
      {"ibgda", "ibgda", "nvlink: same GPU 0", "nvlink: GPUs 0,1 NV4"},
      {"ibgda", "ibgda", "nvlink: GPUs 1,0 NV4", "nvlink: same GPU 1"},
  };
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      INFO("pair " << a << " -> " << b);
      if (std::string(want[a][b]) == "ibgda")
        CHECK(p.pairs[a][b].why == "ibgda: mlx5_0" + kArrow + "mlx5_0 (PIX/PIX)");
      else
        CHECK(p.pairs[a][b].why == want[a][b]);
    }

  // The remote transport asked for, and one node's NIC not mlx5: no fallback to libfabric.
  std::vector<Machine> mixed = ms;
  mixed[1].nics[0].name = "irdma0";
  for (Machine &m : mixed) m.domains.push_back({"tcp", "eth0", ""});
  const Plan pm =
      plan(mixed, 2, 2, PlanOptions{},
           fake::model(fake::allow({fake::kNvlink, fake::kHostshm, fake::kIbgda, fake::kLibfabric},
                                   fake::kIbgda)));
  CHECK_FALSE(pm.ok());
  CHECK(
      pm.pairs[0][2].why ==
      "none: ibgda: pe 2's NIC irdma0 is not an mlx5 RDMA NIC (requested as the remote transport)");
  // Without the request, the first allowed transport that can: libfabric over tcp.
  const Plan pa = plan(mixed, 2, 2, PlanOptions{}, fake::model());
  REQUIRE(pa.ok());
  CHECK(pa.pairs[0][2].why == "libfabric: tcp eth0" + kArrow + "eth0");
}

TEST_CASE("HWLOC_XMLFILE: hwloc loads a recorded topology by itself", "[topo_live]") {
  Env env("HWLOC_XMLFILE", (std::string(XT_TOPO_DIR) + "/pcie4.xml").c_str());
  Machine m;
  std::string err;
  REQUIRE(discover(DiscoverOptions{}, &m, &err));
  CHECK(m.origin == "recorded (HWLOC_XMLFILE)");
  CHECK(m.host == "pcie4");
  CHECK(m.gpus.size() == 4);
  CHECK(m.domains.empty());  // no live libfabric probe on someone else's machine
}

TEST_CASE("a missing or broken XML file is an error naming the file", "[topo_live]") {
  Machine m;
  std::string err;
  CHECK_FALSE(load_xml("/nonexistent/x.xml", &m, &err));
  CHECK(err.find("/nonexistent/x.xml") != std::string::npos);
  char tmpl[] = "/tmp/xt_topo_XXXXXX";
  const int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "<topology", 9) == 9);
  close(fd);
  err.clear();
  CHECK_FALSE(load_xml(tmpl, &m, &err));
  CHECK(err.find(tmpl) != std::string::npos);
  unlink(tmpl);
}

TEST_CASE("live machine: discovery succeeds and renders", "[topo_live]") {
  Machine m;
  std::string err;
  REQUIRE(discover(DiscoverOptions{}, &m, &err));
  CHECK(m.origin == "live");
  CHECK_FALSE(m.host.empty());
  CHECK_FALSE(m.numa.empty());
  // No NVIDIA driver: no NVIDIA GPU can be seen; no RDMA device: no NIC.
  if (access("/dev/nvidiactl", F_OK) != 0) CHECK(m.gpus.empty());
  if (access("/sys/class/infiniband", F_OK) != 0) CHECK(m.nics.empty());
  for (const Gpu &g : m.gpus) CHECK(g.bus_id.size() == 12);
  const auto j = nlohmann::json::parse(to_json(m));
  CHECK(j["host"] == m.host);
  CHECK(j["gpus"].size() == m.gpus.size());
  CHECK(j["nics"].size() == m.nics.size());
  CHECK(j["fabric_domains"].size() == m.domains.size());
  const Plan p = plan({m}, 2, 1, PlanOptions{}, fake::model());
  INFO(plan_text(p));
  CHECK(p.ok());
  if (m.gpus.empty()) CHECK(p.pairs[0][1].transport == fake::kHostshm);
}

TEST_CASE("renderings: matrix, JSON, plan and dot", "[topo_render]") {
  const Machine m = load("dgx8.xml");
  const std::string t = matrix_text(m);
  INFO(t);
  const auto first_line = t.substr(0, t.find('\n'));
  CHECK(first_line.find("GPU0") != std::string::npos);
  CHECK(first_line.find("NIC7") != std::string::npos);
  CHECK(first_line.find("NUMA Affinity") != std::string::npos);
  // Row GPU0: X, NV18 x7, PIX PIX NODE NODE SYS x4, cpus 0-7, NUMA 0.
  const size_t row = t.find("\nGPU0 ");
  REQUIRE(row != std::string::npos);
  const std::string r0 = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  std::vector<std::string> cells;
  for (size_t i = 0; i < r0.size();) {
    const size_t e = r0.find(' ', i);
    cells.push_back(r0.substr(i, e - i));
    i = r0.find_first_not_of(' ', e == std::string::npos ? r0.size() : e);
    if (i == std::string::npos) break;
  }
  const std::vector<std::string> want = {"GPU0", "X",    "NV18", "NV18", "NV18", "NV18", "NV18",
                                         "NV18", "NV18", "PIX",  "PIX",  "NODE", "NODE", "SYS",
                                         "SYS",  "SYS",  "SYS",  "0-7",  "0"};
  CHECK(cells == want);
  CHECK(t.find("NIC7: mlx5_7") != std::string::npos);
  const std::string pcie = matrix_text(load("pcie4.xml"));
  CHECK(pcie.find("\nGPU2  NODE  NODE  X     PIX   NODE") != std::string::npos);

  const auto j = nlohmann::json::parse(to_json(m));
  CHECK(j["gpus"].size() == 8);
  CHECK(j["gpus"][3]["bus_id"] == dgx_gpu_bus(3));
  CHECK(j["gpus"][3]["links"][5]["class"] == "NV18");
  CHECK(j["gpus"][3]["nic_classes"][2] == "PIX");
  CHECK(j["gpus"][3]["nic_classes"][0] == "NODE");
  CHECK(j["gpus"][3]["nic_classes"][4] == "SYS");
  CHECK(j["nics"][6]["ports"][0]["state"] == "ACTIVE");

  const Plan p = plan({m}, 8, 2, PlanOptions{}, fake::model());
  const auto pj = nlohmann::json::parse(plan_json(p));
  CHECK(pj["ok"] == true);
  CHECK(pj["pes"].size() == 16);
  CHECK(pj["pairs"].size() == 256);
  CHECK(pj["pairs"][0 * 16 + 9]["transport"] == "ibgda");
  const std::string pt = plan_text(p);
  CHECK(pt.find("  0 -> 9: ibgda: mlx5_0" + kArrow + "mlx5_1 (PIX/PIX)\n") != std::string::npos);
  // The matrix names the model's transports, each column as wide as the longest name + 1.
  CHECK(pt.find("\ntransport matrix (- none):\n") != std::string::npos);
  CHECK(pt.find("\n0     " + std::string("nvlink    ") +
                "nvlink    nvlink    nvlink    nvlink    "
                "nvlink    nvlink    nvlink    ibgda     ibgda") != std::string::npos);

  const std::string dot = to_dot({m}, &p);
  CHECK(dot.rfind("graph xshmem {", 0) == 0);
  CHECK(dot.find("cluster_node1") != std::string::npos);
  CHECK(dot.find("n0_gpu0 -- n0_gpu1 [color=green, label=\"NV18\"]") != std::string::npos);
  CHECK(dot.find("n0_nic0 -- n1_nic1 [style=dashed, color=red, label=\"ibgda\"]") !=
        std::string::npos);
  CHECK(dot.back() == '\n');
}

TEST_CASE("gpu vm: two GPUs under the host bridge, NV18, no NIC", "[topo_gpuvm]") {
  const Machine m = load("gpu2vm.xml");
  REQUIRE(m.gpus.size() == 2);
  CHECK(m.nics.empty());
  CHECK(m.gpus[0].bus_id == "0000:00:06.0");
  CHECK(m.gpus[1].bus_id == "0000:00:07.0");
  CHECK(m.gpus[1].name == "NVIDIA H200");
  CHECK(m.gpus[0].cpuset == "0-31");
  CHECK(m.gpus[0].pci_path == "host bridge 0000:[00-00]");
  CHECK(m.gpu_gpu[0][1].pci == PathClass::kPHB);
  CHECK(m.gpu_gpu[0][1].nvlinks == 18);
  CHECK(matrix_text(m).find("\nGPU0  X     NV18  0-31          0\n") != std::string::npos);

  const Plan p = plan({m}, 2, 1, PlanOptions{}, fake::model());
  REQUIRE(p.ok());
  CHECK(p.pairs[0][1].why == "nvlink: GPUs 0,1 NV18");
  CHECK(p.pairs[1][1].why == "nvlink: same GPU 1");

  // XSHMEM_TRANSPORTS=^nvlink: nothing else reaches the peer, and the plan says why.
  const Plan pn = plan({m}, 2, 1, PlanOptions{},
                       fake::model(fake::allow({fake::kHostshm, fake::kIbgda, fake::kLibfabric})));
  CHECK_FALSE(pn.ok());
  CHECK(pn.pairs[0][1].transport == fake::kNone);
  CHECK(pn.pairs[0][1].why ==
        "none: nvlink (GPUs 0,1 NV18) is not allowed; ibgda: pe 0 has no usable NIC; libfabric: "
        "no libfabric provider on node 0");
  REQUIRE(pn.errors.size() == 4);  // 0->0, 0->1, 1->0, 1->1
  CHECK(pn.errors[1] ==
        "no transport reaches pe 1 from pe 0: nvlink (GPUs 0,1 NV18) is not allowed; ibgda: pe 0 "
        "has no usable NIC; libfabric: no libfabric provider on node 0");
}

TEST_CASE("NVLink counts as the recording's hwloc means them", "[topo_nvlink_units]") {
  // hwloc 2.10 writes 25000 MB/s per NVLink 4 link: H100/H200 NV18 is 450000 (was read as NV9).
  const Machine vm = load("gpu2vm.xml");
  CHECK(vm.hwloc_version == "2.10.0");
  CHECK(vm.gpu_gpu[0][1].nvlinks == 18);
  const Machine dgx = load("dgx8.xml");
  for (int g = 1; g < 8; ++g) CHECK(dgx.gpu_gpu[0][g].nvlinks == 18);
  // NVLink 3 (A100), 4 links of 25000 (was read as NV2).
  CHECK(load("node2gpu-a0.xml").gpu_gpu[0][1].nvlinks == 4);
  // A recording without hwlocVersion and 50000 per link: more than an H100's 18 links at 25000,
  // so the larger unit; still NV18.
  std::string text = read_file(std::string(XT_TOPO_DIR) + "/gpu2vm.xml");
  text = replace_all(text, "<info name=\"hwlocVersion\" value=\"2.10.0\"/>", "");
  text = replace_all(text, " 450000 ", " 900000 ");
  const std::string path = temp_xml(text);
  Machine legacy;
  std::string err;
  REQUIRE(load_xml(path, &legacy, &err));
  unlink(path.c_str());
  CHECK(legacy.hwloc_version.empty());
  CHECK(legacy.gpu_gpu[0][1].nvlinks == 18);
}

TEST_CASE("NVSwitch on two baseboards: every GPU pair is an NVLink peer", "[topo_nvswitch]") {
  const Machine m = load("nvswitch2bb.xml");
  REQUIRE(m.gpus.size() == 16);
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      INFO("gpus " << a << "," << b);
      CHECK(m.gpu_gpu[a][b].nvlinks == 18);
      CHECK(m.gpu_gpu[a][b].p2p);
      CHECK(m.gpu_gpu[a][b].source == "hwloc");
    }
  const Plan p = plan({m}, 16, 1, PlanOptions{}, fake::model());
  REQUIRE(p.ok());
  CHECK(p.pairs[0][15].why == "nvlink: GPUs 0,15 NV18");
  CHECK(p.count(fake::kNvlink) == 256);
}

TEST_CASE("GPU memory as NUMA nodes: GPUs keep their NUMA node, NICs stay on the socket",
          "[topo_gpumem]") {
  const Machine m = load("gh200x2.xml");
  REQUIRE(m.numa.size() == 4);
  int gpu_memory_nodes = 0;
  for (const NumaNode &n : m.numa) gpu_memory_nodes += n.subtype == "GPUMemory";
  CHECK(gpu_memory_nodes == 2);
  REQUIRE(m.gpus.size() == 2);
  REQUIRE(m.nics.size() == 2);
  for (int g = 0; g < 2; ++g) {
    INFO("gpu " << g);
    CHECK(m.gpus[g].numa_node == g);
    CHECK(m.nics[g].numa_node == g);
    CHECK(m.gpu_nic[g][g] == PathClass::kNODE);
    CHECK(m.gpu_nic[g][1 - g] == PathClass::kSYS);
  }
  const auto c = nic_per_gpu(m, parse_nic_filter(""));
  CHECK(c[0].nic == 0);
  CHECK(c[0].cls == PathClass::kNODE);
  CHECK(c[1].nic == 1);
  CHECK(c[1].cls == PathClass::kNODE);
}

TEST_CASE("GPUs only as OS devices: named, and no silent plan of CPU PEs", "[topo_osdev]") {
  const Machine m = load("osdev2gpu.xml");
  CHECK(m.gpus.empty());
  REQUIRE(m.unplaced_gpus.size() == 2);
  CHECK(m.unplaced_gpus[0] == "nvml0 (NVIDIA H100 80GB HBM3)");
  bool noted = false;
  for (const auto &n : m.notes)
    noted = noted || n.find("appear only as OS devices") != std::string::npos;
  CHECK(noted);
  const Plan p = plan({m}, 2, 1, PlanOptions{}, fake::model());
  CHECK_FALSE(p.ok());
  REQUIRE_FALSE(p.errors.empty());
  CHECK(p.errors[0].find("records 2 NVIDIA GPU(s) without a PCI location") != std::string::npos);
  PlanOptions host;
  host.host_heap = true;
  CHECK(plan({m}, 2, 1, host, fake::model()).ok());
  // The GPU machine's own recording: its OpenCL device sits beside the PCI GPU (hwloc could not
  // match it), which is no unplaced GPU.
  CHECK(load("gpu2vm.xml").unplaced_gpus.empty());
}

TEST_CASE("unreadable recordings: the error says what is wrong, never the live machine",
          "[topo_xmlerr]") {
  Machine m;
  std::string err;
  CHECK_FALSE(load_xml("/nonexistent/x.xml", &m, &err));
  CHECK(err.find("/nonexistent/x.xml") != std::string::npos);
  CHECK(err.find("No such file or directory") != std::string::npos);
  err.clear();
  CHECK_FALSE(load_xml(std::string(XT_TOPO_DIR) + "/v3format.xml", &m, &err));
  CHECK(err.find("format version is 3.0, newer than hwloc") != std::string::npos);
  err.clear();
  CHECK_FALSE(load_xml(std::string(XT_TOPO_DIR) + "/broken.xml", &m, &err));
  // hwloc's own words come before its errno (libxml2's parser: "Premature end of data ...").
  INFO(err);
  CHECK(err.find("broken.xml\": ") != std::string::npos);
  CHECK(err.find("broken.xml\": (") == std::string::npos);
  {
    Env env("HWLOC_XMLFILE", "/nonexistent/y.xml");
    err.clear();
    CHECK_FALSE(discover(DiscoverOptions{}, &m, &err));
    CHECK(err.find("HWLOC_XMLFILE=/nonexistent/y.xml") != std::string::npos);
  }
}

TEST_CASE("the CPU affinity column is as wide as its content", "[topo_affinity]") {
  const Machine m = load("wideaff.xml");
  REQUIRE(m.gpus[0].cpuset == "0-27,56-83,112-139,168-195");
  const std::string t = matrix_text(m);
  INFO(t);
  CHECK(t.find("\nGPU0  X     NV18  0-27,56-83,112-139,168-195  0\n") != std::string::npos);
  CHECK(t.find("CPU Affinity                NUMA Affinity") != std::string::npos);
}

TEST_CASE("scale: 10^4 PEs are planned by class, not by pair", "[topo_scale]") {
  const Machine m = load("dgx8.xml");
  const auto t0 = std::chrono::steady_clock::now();
  const Plan p = plan({m}, 8, 1250, PlanOptions{}, fake::model());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(secs < 5);
  REQUIRE(p.ok());
  CHECK_FALSE(p.full_pairs());
  CHECK(p.pes.size() == 10000);
  uint64_t total = 0;
  for (const PairClass &c : p.classes) total += c.count;
  CHECK(total == 100000000ull);
  CHECK(p.count(fake::kNvlink) == 80000);
  CHECK(p.count(fake::kIbgda) == 100000000ull - 80000);
  CHECK(p.classes.size() == 128);
  CHECK(p.transport(9999, 9992) == fake::kNvlink);
  CHECK(p.transport(5, 9999) == fake::kIbgda);
  const PairPlan r = plan_pair({m}, fake::model(), p, 5, 9999);
  CHECK(r.why == "ibgda: mlx5_5" + kArrow + "mlx5_7 (PIX/PIX)");
  // The classes agree with every pair of a smaller plan computed one by one.
  const Plan small = plan({m}, 8, 3, PlanOptions{}, fake::model());
  REQUIRE(small.full_pairs());
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b) CHECK(small.transport(a, b) == small.pairs[a][b].transport);
  const std::string text = plan_text(p);
  CHECK(text.find("  nvlink    80000 pairs in 64 class(es)\n") != std::string::npos);
  CHECK(text.find("\ntransport matrix (") == std::string::npos);
}

TEST_CASE("scale: a 1024-GPU recording loads and renders in seconds", "[topo_big]") {
  const std::string path = temp_xml(xt::big_machine_xml(1024));
  const auto t0 = std::chrono::steady_clock::now();
  Machine m;
  std::string err;
  const bool ok = load_xml(path, &m, &err);
  unlink(path.c_str());
  REQUIRE(ok);
  const std::string text = matrix_text(m);
  const std::string js = to_json(m);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(secs < 10);
  REQUIRE(m.gpus.size() == 1024);
  CHECK(m.gpu_gpu[0][1023].nvlinks == 18);  // boards 0 and 127: through the switch fabric
  CHECK(m.gpu_gpu[517][3].nvlinks == 18);
  CHECK(text.find("GPU-GPU pairs (ordered): NV18 1047552\n") != std::string::npos);
  CHECK(text.size() < 100000);
  CHECK(js.size() < 16u << 20);
}
