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

// Adds entries (plugins). The table copies the strings, so a plugin's static entries may go away
// with dlclose; the loader still removes a plugin's entries with unregister_owner before dlclose.
// Every name must start with "XSHMEM_" and every default must parse as its type; a bad entry or
// a name already registered by another owner fails the whole call with XSHMEM_ERR_INVALID (the
// same owner registering a name again replaces it). When `owner` is nullptr or "core" and an
// OwnerScope is active on the calling thread, the scope's owner is recorded instead: that is how
// entries registered through the services table are attributed to the plugin being called.
Status register_entries(const xshmem_config_entry_v1_t *entries, size_t n,
                        const char *owner = "core");
void unregister_owner(const char *owner);

// While alive, register_entries on this thread records `owner` (a plugin's name) for entries
// registered as "core" or nullptr. The loader holds one around a plugin's load(); the context
// should hold one around calls into a plugin that may register entries (init). Nests.
class OwnerScope {
 public:
  explicit OwnerScope(const char *owner);
  ~OwnerScope();
  OwnerScope(const OwnerScope &) = delete;
  OwnerScope &operator=(const OwnerScope &) = delete;
};

// Typed getters: the environment's value if set and valid, else the default. An invalid value
// logs a warning naming the variable, the value and what is expected, and yields the default.
// Unknown names are a programming error: logged at error level, returning 0/"".
std::string get_string(const char *name);
int64_t get_int(const char *name);          // INT
uint64_t get_size(const char *name);        // SIZE in bytes ("2G" = 2 * 1024^3; K M G T P E)
bool get_bool(const char *name);            // BOOL
int64_t get_duration_ms(const char *name);  // DURATION
std::string get_enum(const char *name);     // ENUM: one of the choices (lower case)
// LIST: the selected words. "a,b" selects a and b; "^a,b" selects every choice except a and b;
// empty selects all choices. Words outside `choices` (when choices is set) are warned about.
// For a LIST without choices the words come back as written, and an exclusion "^a,b" comes back
// as {"^a", "^b"}: use get_list_spec to interpret it.
std::vector<std::string> get_list(const char *name);

// Empty when `name` is unset or set to a valid value; else why the environment's value is
// invalid, as the getters' warning says it ("expected ...", "it overflows 64 bits ..."), with
// the value in *text. For callers to whom the default is no answer (XSHMEM_SYMMETRIC_SIZE).
std::string env_problem(const char *name, std::string *text = nullptr);

// A LIST value as written: "a,b" selects a and b, "^a,b" everything but a and b, "" everything.
struct ListSpec {
  bool exclude = false;
  std::vector<std::string> words;  // lower case, no empty words, no '^'
  bool selects_all() const { return !exclude && words.empty(); }
  // Whether `word` is selected (case-insensitive).
  bool selects(const std::string &word) const;
};
// The LIST's value (environment or default), not checked against choices.
ListSpec get_list_spec(const char *name);

// Parsers (exposed for tests). Leading and trailing blanks are ignored; nullopt: does not parse.
std::optional<uint64_t> parse_size(const std::string &text);
std::optional<bool> parse_bool(const std::string &text);
std::optional<int64_t> parse_duration_ms(const std::string &text);
std::optional<int64_t> parse_int(const std::string &text);
ListSpec parse_list(const std::string &text);

// The environment's text for `name`: the XSHMEM_* variable when set (not empty), else the
// translation of an NVSHMEM_* alias of it (nvshmem.h programs; *via gets the alias's name); ""
// when neither gives a value (*why: why a set alias gives none, or empty). Never logs: the
// logger reads its own variables through it.
std::string env_text(const char *name, std::string *via = nullptr, std::string *why = nullptr);

// The NVSHMEM_* variables xshmem honours, and what each does in this environment.
struct AliasInfo {
  std::string alias, name /* the XSHMEM_* variable, or "" (nothing to set) */, meaning;
  bool set = false;
  std::string text, value;  // (set) the alias's text (lower case), its XSHMEM_* value
  std::string outcome;      // (set) "used as X=v", "ignored: why", "accepted", ...
};
std::vector<AliasInfo> aliases();
// Whether `name` is one of them.
bool is_alias(const std::string &name);

// One row of the listing.
struct VarInfo {
  std::string name, type, value, default_value, source /* "env" or "default" */, choices, doc,
      owner;
  std::string via;  // (source "env") the NVSHMEM_* alias the value came from, or ""
  // Set when the environment holds a value that does not parse (then value is the default):
  // "invalid value '<text>' ignored: expected <what>".
  std::string note;
};
std::vector<VarInfo> list();

// Warns once per unknown XSHMEM_* variable in the environment, naming the closest known one
// ("did you mean"). Called after all plugins registered their entries.
void warn_unknown();

}  // namespace xshmem::config

#endif  // XSHMEM_CORE_CONFIG_H
