// xshmem-perf: bandwidth and latency of the xshmem API.
//
//   xshmem-run -n 2 xshmem-perf [--metrics put_bw,get_bw] [--csv out.csv] [--json out.json]
//
// Host-API metrics run when the heap is in host memory, device-kernel metrics (named dev.*, CUDA
// builds) when it is in GPU memory.
// Every PE runs every selected metric in the same order, separated by barriers; PE 0 prints an
// aligned table after xshmem_finalize (so finalize_ms can be in it) and writes CSV/JSON on
// request. The exit status is nonzero if any transfer moved wrong data.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "perf.h"

namespace xshmem::perf {
namespace {

// Whether this process prints help, the metric list and usage errors: before xshmem_init only
// the launcher's environment tells which PE it is, and only the first PE of a job speaks, so
// `xshmem-run -n 4 xshmem-perf --help` prints the help once. The others exit silently with
// status 0 (kQuiet): had they exited with the usage error's status first, the launcher
// would have stopped the first PE before it printed why. A process no launcher started speaks.
constexpr int kQuiet = 0;  // exit status of the PEs that do not speak

bool speaks_for_job() {
  for (const char *var : {"XSHMEM_BOOTSTRAP_TCP_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                          "PMI_RANK", "SLURM_PROCID"}) {
    const char *v = std::getenv(var);
    if (v != nullptr && *v != '\0') return std::atoi(v) <= 0;  // tcp's unset rank is -1
  }
  return true;
}

// Every metric table of the program, in run order: host API, then device kernels (CUDA builds),
// then the GDA posting rate (CUDA builds with the ibgda NIC model).
std::vector<MetricDef> all_metrics() {
  std::vector<MetricDef> out;
  for (const MetricDef &m : host_metrics()) out.push_back(m);
#ifdef XSHMEM_PERF_LIBFABRIC
  for (const MetricDef &m : fabric_metrics()) out.push_back(m);
#endif
#ifdef XSHMEM_PERF_DEVICE
  for (const MetricDef &m : device_metrics()) out.push_back(m);
#endif
#ifdef XSHMEM_PERF_GDA
  for (const MetricDef &m : gda_metrics()) out.push_back(m);
#endif
  return out;
}

// Metrics computed from others, and what they need.
const std::map<std::string, std::vector<std::string>> kDerivedNeeds = {
    {"put_vs_memcpy", {"put_bw"}},
    {"memcpy_bw", {"put_bw"}},
    {"fi_write_bw", {"fi_write_vs_put"}},
    {"put_vs_fi_write", {"fi_write_vs_put"}},
    {"put_lat_8B", {"fi_write_vs_put"}},
    {"fi_write_lat_8B", {"fi_write_vs_put"}},
    {"put_added_lat_8B", {"fi_write_vs_put"}},
    {"dev.put_bw_sweep", {"dev.put_bw"}},
    {"dev.put_bw_best", {"dev.put_bw"}},
    {"dev.put_bw_unaligned_1GiB", {"dev.put_bw"}},
};

// Resolves --metrics into a set of names; empty string on success, else the error.
std::string select_metrics(const Options &opt, const std::vector<MetricDef> &table,
                           std::set<std::string> &selected) {
  std::set<std::string> known;
  for (const MetricDef &m : table) known.insert(m.name);
  if (opt.metrics.empty() ||
      std::find(opt.metrics.begin(), opt.metrics.end(), "all") != opt.metrics.end()) {
    selected = known;
    return {};
  }
  for (const std::string &name : opt.metrics) {
    // "host" and "device" select a whole table.
    if (name == "host" || name == "device") {
      const Where where = name == "host" ? Where::kHost : Where::kDevice;
      for (const MetricDef &m : table)
        if (m.where == where) selected.insert(m.name);
      continue;
    }
    if (known.count(name) == 0) {
      std::string list;
      for (const MetricDef &m : table) list += std::string(list.empty() ? "" : ", ") + m.name;
      return "unknown metric '" + name + "'; known metrics: " + list + " (or all, host, device)";
    }
    selected.insert(name);
    auto it = kDerivedNeeds.find(name);
    if (it != kDerivedNeeds.end()) selected.insert(it->second.begin(), it->second.end());
  }
  return {};
}

std::string format_value(double v) {
  char buf[32];
  if (v >= 1000)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (v >= 10)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else if (v >= 1)
    std::snprintf(buf, sizeof buf, "%.3f", v);
  else  // host latencies of a few ns: four digits, so 10% differences show
    std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string check_text(const Sample &s) {
  if (!s.verified) return "FAILED" + (s.note.empty() ? "" : " (" + s.note + ")");
  return s.note.empty() ? "ok" : "ok (" + s.note + ")";
}

void print_table(const Context &ctx, const std::string &header,
                 const std::vector<std::string> &skipped) {
  const auto &samples = ctx.samples();
  size_t wname = 6;
  for (const Sample &s : samples) wname = std::max(wname, s.metric.size());
  std::printf("%s\n", header.c_str());
  size_t wtr = 9;
  for (const Sample &s : samples) wtr = std::max(wtr, s.transport.size());
  std::printf("%-*s %9s %12s %12s %12s  %-5s %12s  %-*s  %s\n", static_cast<int>(wname), "metric",
              "size", "median", "min", "max", "unit", "iters x reps", static_cast<int>(wtr),
              "transport", "check");
  std::map<std::string, int> rows;
  for (const Sample &s : samples) ++rows[s.metric];
  std::string prev;
  for (const Sample &s : samples) {
    // Sweeps (several rows of one metric) stand apart from their neighbours.
    if (!prev.empty() && prev != s.metric && (rows[prev] > 1 || rows[s.metric] > 1))
      std::printf("\n");
    prev = s.metric;
    const bool single = s.reps <= 1;
    const std::string size = s.size != 0 ? format_size(s.size) : "-";
    const std::string iters =
        s.iters == 0 ? "-" : std::to_string(s.iters) + "x" + std::to_string(s.reps);
    // "x" is two bytes but one column: widen by one so the columns line up.
    std::printf("%-*s %9s %12s %12s %12s  %-5s %12s  %-*s  %s\n", static_cast<int>(wname),
                s.metric.c_str(), size.c_str(), format_value(s.median).c_str(),
                single ? "-" : format_value(s.min).c_str(),
                single ? "-" : format_value(s.max).c_str(), s.unit.c_str(), iters.c_str(),
                static_cast<int>(wtr), s.transport.c_str(), check_text(s).c_str());
  }
  for (const std::string &line : skipped) std::printf("skipped: %s\n", line.c_str());
  std::fflush(stdout);
}

bool write_csv(const Context &ctx, const std::string &path) {
  std::ofstream f(path);
  if (!f) return false;
  f << "metric,size_bytes,median,min,max,unit,iters,reps,verified,note,transport\n";
  for (const Sample &s : ctx.samples()) {
    f << s.metric << ',' << (s.size != 0 ? std::to_string(s.size) : "") << ',' << s.median << ','
      << s.min << ',' << s.max << ',' << s.unit << ',' << s.iters << ',' << s.reps << ','
      << (s.verified ? "true" : "false") << ",\"" << s.note << "\",\"" << s.transport << "\"\n";
  }
  return static_cast<bool>(f);
}

bool write_json(const Context &ctx, const Options &opt, const std::string &transport,
                const std::vector<std::string> &skipped, const std::string &path) {
  nlohmann::json j;
  j["program"] = "xshmem-perf";
  j["npes"] = ctx.npes;
  j["transport_pe0_to_pe1"] = transport;
  j["config"] = {{"reps", opt.reps},
                 {"iters", opt.iters},
                 {"min_time_s", opt.min_time_s},
                 {"min_size", opt.min_size},
                 {"max_size", opt.max_size},
                 {"size_step", opt.size_step},
                 {"statistic", "median of reps"}};
  nlohmann::json results = nlohmann::json::array();
  for (const Sample &s : ctx.samples()) {
    nlohmann::json r = {{"metric", s.metric}, {"median", s.median},    {"min", s.min},
                        {"max", s.max},       {"unit", s.unit},        {"iters", s.iters},
                        {"reps", s.reps},     {"verified", s.verified}};
    if (s.size != 0) r["size_bytes"] = s.size;
    if (!s.note.empty()) r["note"] = s.note;
    r["transport"] = s.transport;
    results.push_back(std::move(r));
  }
  j["results"] = std::move(results);
  j["skipped"] = skipped;
  std::ofstream f(path);
  if (!f) return false;
  f << j.dump(2) << '\n';
  return static_cast<bool>(f);
}

int run(int argc, char **argv) {
  Options opt;
  bool list = false;
  CLI::App app{
      "xshmem-perf: bandwidth and latency of xshmem, PE 0 -> PE 1 (run it with "
      "xshmem-run -n 2 xshmem-perf)"};
  app.add_option("--metrics", opt.metrics,
                 "comma-separated metrics to run, or host / device for a whole table (default: "
                 "all)")
      ->delimiter(',');
  app.add_option("--min-size", opt.min_size, "smallest bandwidth size (default 8, accepts 4K, 1M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--max-size", opt.max_size, "largest bandwidth size (default 64M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--size-step", opt.size_step, "factor between bandwidth sizes (default 2)")
      ->check(CLI::Range(2u, 1024u));
  app.add_option("--iters", opt.iters, "timed iterations per repetition of latency metrics")
      ->check(CLI::Range(1u, 1000000000u));
  app.add_option("--reps", opt.reps, "repetitions; the median is reported (default 5)")
      ->check(CLI::Range(1u, 1000u));
  app.add_option("--min-time", opt.min_time_s,
                 "seconds one repetition of a bandwidth metric lasts at least (default 0.1)")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--csv", opt.csv_path, "write the results as CSV to this file (PE 0)");
  app.add_option("--json", opt.json_path, "write the results as JSON to this file (PE 0)");
  app.add_flag("--list", list, "list the metrics and exit");
  app.add_flag("--progress", opt.progress,
               "print each row to stderr as soon as it is measured (a run cut short still "
               "shows what it measured)");
  const bool speaks = speaks_for_job();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (!speaks) return kQuiet;
    return app.exit(e);
  }

  const std::vector<MetricDef> table = all_metrics();
  if (list) {
    if (speaks)
      for (const MetricDef &m : table) std::printf("%-40s %-6s %s\n", m.name, m.unit, m.doc);
    return 0;
  }
  if (opt.min_size == 0 || opt.min_size > opt.max_size) {
    if (!speaks) return kQuiet;
    std::fprintf(stderr,
                 "xshmem-perf: --min-size %zu must be at least 1 and at most --max-size %zu\n",
                 opt.min_size, opt.max_size);
    return 2;
  }
  std::set<std::string> selected;
  if (std::string err = select_metrics(opt, table, selected); !err.empty()) {
    if (!speaks) return kQuiet;
    std::fprintf(stderr, "xshmem-perf: %s\n", err.c_str());
    return 2;
  }

  auto t_init = Clock::now();
  xshmem_init();
  const double init_ms = seconds_since(t_init) * 1e3;

  Context ctx(opt, xshmem_my_pe(), xshmem_n_pes());
  const bool pe0 = ctx.me == 0;
  const char *tname = xshmemx_transport_name(ctx.npes > 1 ? 1 : 0);
  const std::string transport = tname != nullptr ? tname : "none";
  ctx.transport = transport;
  std::vector<std::string> skipped;
  if (selected.count("init_ms")) ctx.record_value("init_ms", 0, init_ms, "ms");

  // Host metrics read and write the heap from the CPU; kernels need it in GPU memory.
  bool gpu_heap = false;
  std::string no_gpu_heap = "this build has no CUDA";
#ifdef XSHMEM_PERF_DEVICE
  gpu_heap = device_heap_on_gpu(ctx, no_gpu_heap);
#endif
  for (const MetricDef &m : table) {
    if (selected.count(m.name) == 0) continue;
    if (m.where == Where::kDevice && !gpu_heap) {
      if (m.fn != nullptr) skipped.push_back(std::string(m.name) + ": " + no_gpu_heap);
      continue;
    }
    if (m.where == Where::kHost && gpu_heap && m.fn != nullptr && m.host_touches_heap) {
      skipped.push_back(std::string(m.name) +
                        ": the symmetric heap is in GPU memory, which this host metric cannot "
                        "dereference (XSHMEM_HEAP=host runs it)");
      continue;
    }
    if (ctx.npes < m.min_pes) {
      skipped.push_back(std::string(m.name) + ": needs " + std::to_string(m.min_pes) +
                        " PEs, the job has " + std::to_string(ctx.npes));
      continue;
    }
    if (m.fn == nullptr) {
      // memcpy_bw and put_vs_memcpy are recorded by put_bw (measured alongside it); init_ms
      // and finalize_ms are measured around init and finalize.
      continue;
    }
    if (pe0) {
      std::fprintf(stderr, "xshmem-perf: running %s\n", m.name);
      std::fflush(stderr);
    }
    xshmem_barrier_all();
    m.fn(ctx);
    xshmem_barrier_all();
  }

  auto t_fin = Clock::now();
  xshmem_finalize();
  const double finalize_ms = seconds_since(t_fin) * 1e3;
  if (selected.count("finalize_ms")) ctx.record_value("finalize_ms", 0, finalize_ms, "ms");

  if (pe0) {
    char header[256];
    std::snprintf(
        header, sizeof header,
        "# xshmem-perf: %d PEs, transport PE 0 -> PE %d: %s; median of %u reps; latency %u "
        "iters/rep; bandwidth >= %.2g s/rep",
        ctx.npes, ctx.npes > 1 ? 1 : 0, transport.c_str(), opt.reps, opt.iters, opt.min_time_s);
    print_table(ctx, header, skipped);
    if (!opt.csv_path.empty() && !write_csv(ctx, opt.csv_path)) {
      std::fprintf(stderr, "xshmem-perf: cannot write CSV to '%s'\n", opt.csv_path.c_str());
      return 1;
    }
    if (!opt.json_path.empty() && !write_json(ctx, opt, transport, skipped, opt.json_path)) {
      std::fprintf(stderr, "xshmem-perf: cannot write JSON to '%s'\n", opt.json_path.c_str());
      return 1;
    }
  }
  if (ctx.any_failure()) {
    std::fprintf(stderr, "xshmem-perf: pe %d: some transfers moved wrong data (see FAILED)\n",
                 ctx.me);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace xshmem::perf

int main(int argc, char **argv) {
  return xshmem::perf::run(argc, argv);
}
