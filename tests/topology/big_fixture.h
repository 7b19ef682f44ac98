// A large recorded machine for the scale tests, written at test time (megabytes, not committed):
// `gpus` H100s in baseboards of 8, each baseboard one PCIe switch (8 GPUs) and 4 NVSwitches, every
// GPU's 18 NVLinks to its baseboard's switches (5+4+4+5, 25000 MB/s each, as hwloc 2.10's NVML
// backend records them), half the baseboards on each of two packages. As tests/topology/
// gen_fixtures.py's machines, in hwloc's v2 XML format.
#ifndef XSHMEM_TESTS_TOPOLOGY_BIG_FIXTURE_H
#define XSHMEM_TESTS_TOPOLOGY_BIG_FIXTURE_H

#include <cstdio>
#include <string>
#include <vector>

namespace xt {

inline std::string big_machine_xml(int gpus) {
  const int boards = (gpus + 7) / 8;
  std::string x;
  x.reserve(static_cast<size_t>(gpus) * gpus * 3);
  char b[512];
  int gp = 0;
  std::vector<int> gpu_gp, switch_gp;
  x += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n";
  x += "<topology version=\"2.0\">\n";
  x += "  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000ffff\" complete_cpuset="
       "\"0x0000ffff\" allowed_cpuset=\"0x0000ffff\" nodeset=\"0x3\" complete_nodeset=\"0x3\" "
       "allowed_nodeset=\"0x3\" gp_index=\"" +
       std::to_string(++gp) + "\">\n";
  x += "    <info name=\"HostName\" value=\"big" + std::to_string(gpus) + "\"/>\n";
  x += "    <info name=\"hwlocVersion\" value=\"2.10.0\"/>\n";
  for (int pk = 0; pk < 2; ++pk) {
    const char *cpus = pk == 0 ? "0x000000ff" : "0x0000ff00";
    const char *node = pk == 0 ? "0x1" : "0x2";
    snprintf(
        b, sizeof(b),
        "    <object type=\"Package\" os_index=\"%d\" cpuset=\"%s\" complete_cpuset=\"%s\" "
        "nodeset=\"%s\" complete_nodeset=\"%s\" gp_index=\"%d\">\n"
        "      <object type=\"NUMANode\" os_index=\"%d\" cpuset=\"%s\" complete_cpuset=\"%s\" "
        "nodeset=\"%s\" complete_nodeset=\"%s\" gp_index=\"%d\" local_memory=\"1099511627776\"/>\n",
        pk, cpus, cpus, node, node, gp + 1, pk, cpus, cpus, node, node, gp + 2);
    gp += 2;
    x += b;
    for (int c = 8 * pk; c < 8 * pk + 8; ++c) {
      snprintf(b, sizeof(b),
               "      <object type=\"Core\" os_index=\"%d\" cpuset=\"0x%08x\" complete_cpuset="
               "\"0x%08x\" nodeset=\"%s\" complete_nodeset=\"%s\" gp_index=\"%d\">\n"
               "        <object type=\"PU\" os_index=\"%d\" cpuset=\"0x%08x\" complete_cpuset="
               "\"0x%08x\" nodeset=\"%s\" complete_nodeset=\"%s\" gp_index=\"%d\"/>\n"
               "      </object>\n",
               c, 1u << c, 1u << c, node, node, gp + 1, c, 1u << c, 1u << c, node, node, gp + 2);
      gp += 2;
      x += b;
    }
    for (int bd = pk; bd < boards; bd += 2) {
      // Host bridge (domain = board, buses 0-0x1f) > switch > 8 GPUs and 4 NVSwitches.
      snprintf(b, sizeof(b),
               "      <object type=\"Bridge\" gp_index=\"%d\" bridge_type=\"0-1\" depth=\"0\" "
               "bridge_pci=\"%04x:[00-1f]\">\n"
               "        <object type=\"Bridge\" gp_index=\"%d\" bridge_type=\"1-1\" depth=\"1\" "
               "bridge_pci=\"%04x:[01-1f]\" pci_busid=\"%04x:00:01.0\" pci_type=\"0604 "
               "[1000:c030] [0000:0000] b0\" pci_link_speed=\"31.507692\">\n",
               gp + 1, bd, gp + 2, bd, bd);
      gp += 2;
      x += b;
      for (int k = 0; k < 12; ++k) {
        const int bus = 2 + k;
        snprintf(
            b, sizeof(b),
            "          <object type=\"Bridge\" gp_index=\"%d\" bridge_type=\"1-1\" depth=\"2\" "
            "bridge_pci=\"%04x:[%02x-%02x]\" pci_busid=\"%04x:01:%02x.0\" pci_type=\"0604 "
            "[1000:c030] [0000:0000] b0\" pci_link_speed=\"31.507692\">\n",
            ++gp, bd, bus, bus, bd, k);
        x += b;
        const int g = bd * 8 + k;
        if (k < 8 && g < gpus) {
          snprintf(
              b, sizeof(b),
              "            <object type=\"PCIDev\" gp_index=\"%d\" pci_busid=\"%04x:%02x:00.0\" "
              "pci_type=\"0302 [10de:2330] [10de:16c1] a1\" pci_link_speed=\"31.507692\">\n"
              "              <object type=\"OSDev\" gp_index=\"%d\" name=\"nvml%d\" "
              "subtype=\"NVML\" osdev_type=\"1\">\n"
              "                <info name=\"GPUModel\" value=\"NVIDIA H100 80GB HBM3\"/>\n"
              "              </object>\n"
              "            </object>\n",
              gp + 1, bd, bus, gp + 2, g);
          gpu_gp.push_back(gp + 2);
          gp += 2;
          x += b;
        } else if (k >= 8) {
          snprintf(b, sizeof(b),
                   "            <object type=\"PCIDev\" gp_index=\"%d\" subtype=\"NVSwitch\" "
                   "pci_busid=\"%04x:%02x:00.0\" pci_type=\"0680 [10de:22a3] [10de:1796] a1\" "
                   "pci_link_speed=\"0.250000\"/>\n",
                   ++gp, bd, bus);
          switch_gp.push_back(gp);
          x += b;
        }
        x += "          </object>\n";
      }
      x += "        </object>\n      </object>\n";
    }
    x += "    </object>\n";
  }
  x += "  </object>\n";
  // GPUs in gp order are not in board order (boards alternate packages): index by board.
  const size_t ng = gpu_gp.size(), ns = switch_gp.size(), n = ng + ns;
  std::string idx, vals;
  for (int g : gpu_gp) idx += "OSDev:" + std::to_string(g) + " ";
  for (int s : switch_gp) idx += "PCIDev:" + std::to_string(s) + " ";
  // Board of each object, from the order written: package 0's boards 0,2,4.., then 1,3,5..
  std::vector<int> board_of_gpu, board_of_switch;
  for (int pk = 0; pk < 2; ++pk)
    for (int bd = pk; bd < boards; bd += 2) {
      for (int k = 0; k < 8 && bd * 8 + k < gpus; ++k) board_of_gpu.push_back(bd);
      for (int k = 0; k < 4; ++k) board_of_switch.push_back(bd);
    }
  static const int kPer[4] = {5, 4, 4, 5};
  std::vector<int> switch_rank(ns);
  for (size_t s = 0; s < ns; ++s) switch_rank[s] = static_cast<int>(s % 4);
  vals.reserve(n * n * 2 + n * 16);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      uint64_t v = 0;
      if (i == j) {
        v = 1000000;
      } else if (i < ng && j >= ng && board_of_gpu[i] == board_of_switch[j - ng]) {
        v = 25000ull * kPer[switch_rank[j - ng]];
      } else if (j < ng && i >= ng && board_of_gpu[j] == board_of_switch[i - ng]) {
        v = 25000ull * kPer[switch_rank[i - ng]];
      }
      vals += std::to_string(v) + " ";
    }
  x += "  <distances2hetero nbobjs=\"" + std::to_string(n) +
       "\" kind=\"25\" name=\"NVLinkBandwidth\" indexing=\"gp\">\n";
  x += "    <indexes length=\"" + std::to_string(idx.size()) + "\">" + idx + "</indexes>\n";
  x += "    <u64values length=\"" + std::to_string(vals.size()) + "\">" + vals + "</u64values>\n";
  x += "  </distances2hetero>\n</topology>\n";
  return x;
}

inline bool write_big_machine(const std::string &path, int gpus) {
  FILE *f = fopen(path.c_str(), "w");
  if (!f) return false;
  const std::string x = big_machine_xml(gpus);
  const bool ok = fwrite(x.data(), 1, x.size(), f) == x.size();
  return fclose(f) == 0 && ok;
}

}  // namespace xt

#endif  // XSHMEM_TESTS_TOPOLOGY_BIG_FIXTURE_H
