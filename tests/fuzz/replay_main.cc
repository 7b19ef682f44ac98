// SEC-03: main() for the fuzz harnesses in the ordinary (gcc) build. Runs the harness once on
// every file named on the command line, and on every file of every folder named (sorted), so the
// committed corpus and the regression inputs are checked even where clang's libFuzzer is absent.
//   xshmem_fuzz_replay_<name> <file or folder>...
// Exits 0 when every input ran (a failing check aborts), 1 when no input was found at all.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> in;
      for (const auto &e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') in.push_back(e.path());
      std::sort(in.begin(), in.end());
      printf("replay: %zu inputs in %s\n", in.size(), p.c_str());
      files.insert(files.end(), in.begin(), in.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      printf("replay: %s does not exist; nothing from it\n", p.c_str());
    }
  }
  if (files.empty()) {
    fprintf(stderr,
            "replay: no input found in the paths given; a replay of nothing proves nothing\n");
    return 1;
  }
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    fflush(stdout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  printf("replay: %zu inputs ran without a failed check\n", files.size());
  return 0;
}
