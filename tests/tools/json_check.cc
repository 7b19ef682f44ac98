// Test helper for xshmem-info's --json output: reads stdin, fails (status 1, with the parser's
// message) unless it is one JSON object.
//   --require a,b,c   the object must have these top-level keys
//   --print-vars      prints "var <name>" for every env.variables entry and "plugin <kind> <name>"
//                     for every loaded plugin (check_config_vars.sh reads them)
// Every "checks" entry must have a status of pass, fail or skip and a non-empty name.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char **argv) {
  std::string require;
  bool print_vars = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--require") == 0 && i + 1 < argc)
      require = argv[++i];
    else if (strcmp(argv[i], "--print-vars") == 0)
      print_vars = true;
    else {
      fprintf(stderr, "xt_json_check: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    fprintf(stderr, "xt_json_check: not JSON: %s\n", e.what());
    return 1;
  }
  if (!j.is_object()) {
    fprintf(stderr, "xt_json_check: the document is not a JSON object\n");
    return 1;
  }
  std::stringstream keys(require);
  std::string key;
  while (std::getline(keys, key, ','))
    if (!key.empty() && !j.contains(key)) {
      fprintf(stderr, "xt_json_check: top-level key '%s' missing\n", key.c_str());
      return 1;
    }
  if (j.contains("checks")) {
    for (const auto &c : j["checks"]) {
      std::string st = c.value("status", ""), name = c.value("name", "");
      if ((st != "pass" && st != "fail" && st != "skip") || name.empty()) {
        fprintf(stderr, "xt_json_check: bad check entry %s\n", c.dump().c_str());
        return 1;
      }
    }
  }
  if (print_vars) {
    if (j.contains("env"))
      for (const auto &v : j["env"]["variables"])
        printf("var %s\n", v["name"].get<std::string>().c_str());
    if (j.contains("plugins"))
      for (const auto &f : j["plugins"]["files"])
        if (f.value("outcome", "") == "loaded")
          printf("plugin %s %s\n", f["kind"].get<std::string>().c_str(),
                 f["name"].get<std::string>().c_str());
  }
  return 0;
}
