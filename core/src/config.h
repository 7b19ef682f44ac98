// xshmem core: the one configuration table.
//
// Every XSHMEM_* variable is an entry {name, type, default, choices, doc}. The core's own entries
// are listed in config.cc; plugins add theirs through the services table. The same table parses
// values, lists them (xshmem-info --env) and warns about unknown XSHMEM_* variables.
#ifndef XSHMEM_CORE_CONFIG_H
#define XSHMEM_CORE_CONFIG_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <xshmem/plugin/common.h>
#include "status.h"

namespace xshmem::config {

// Adds entries (plugins). The strings must outlive the table (plugins keep them static until
// unloaded; the loader removes a plugin's entries with unregister_owner before dlclose).
Status register_entries(const xshmem_config_entry_v1_t *entries, size_t n,
                        const char *owner = "core");
void unregister_owner(const char *owner);

// Typed getters: the environment's value if set and valid, else the default. An invalid value
// logs a warning naming the variable, the value and what is expected, and yields the default.
// Unknown names are a programming error: logged at error level, returning 0/"".
std::string get_string(const char *name);
int64_t get_int(const char *name);       // INT
uint64_t get_size(const char *name);     // SIZE in bytes ("2G" = 2 * 1024^3)
bool get_bool(const char *name);         // BOOL
int64_t get_duration_ms(const char *name);  // DURATION
std::string get_enum(const char *name);  // ENUM: one of the choices (lower case)
// LIST: the selected words. "a,b" selects a and b; "^a,b" selects every choice except a and b;
// empty selects all choices. Words outside `choices` (when choices is set) are warned about.
std::vector<std::string> get_list(const char *name);

// Parsers (exposed for tests).
std::optional<uint64_t> parse_size(const std::string &text);
std::optional<bool> parse_bool(const std::string &text);
std::optional<int64_t> parse_duration_ms(const std::string &text);

// One row of the listing.
struct VarInfo {
  std::string name, type, value, default_value, source /* "env" or "default" */, choices, doc,
      owner;
};
std::vector<VarInfo> list();

// Warns once per unknown XSHMEM_* variable in the environment, naming the closest known one
// ("did you mean"). Called after all plugins registered their entries.
void warn_unknown();

}  // namespace xshmem::config

#endif  // XSHMEM_CORE_CONFIG_H
