// Typed access to the environment-variable table (env_table.def).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace gpushmem::env {

enum class Type { flag, boolean, integer, size, string };

// One row of the table, with the value this process read.
struct Var {
  const char *name;
  Type type;
  const char *default_text;
  const char *category;
  const char *help;
};

// Values after parsing (defaults where unset). Field names are the variable names.
struct Values {
#define GPUSHMEM_ENV_FIELD_flag bool
#define GPUSHMEM_ENV_FIELD_bool bool
#define GPUSHMEM_ENV_FIELD_int int64_t
#define GPUSHMEM_ENV_FIELD_size uint64_t
#define GPUSHMEM_ENV_FIELD_string std::string
#define GPUSHMEM_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP) GPUSHMEM_ENV_FIELD_##TYPE NAME{};
#include "env/env_table.def"
#undef GPUSHMEM_ENV
};

// The table itself, in declaration order.
const std::vector<Var> &table();

// Reads and parses every variable. A malformed value logs which variable, what was read and what was
// expected, and returns invalid_argument.
Status load(Values *out);
// The first variable whose (well-formed) value lies outside what it may be: a message naming it, its text and
// the allowed range; empty when every value is fine.
std::string check_ranges(const Values &v);

// One line per GPUSHMEM_* variable set in the environment that gpushmem does not know (a misspelling is
// otherwise silently ignored), naming the nearest known variable when one is close. Names the build and
// test scripts read (GPUSHMEM_NO_APT, GPUSHMEM_TEST_*) are not reported.
std::vector<std::string> unknown_variables();

// The values loaded by the last successful load() (defaults before that).
const Values &get();
Status load_global();

// One boolean variable of the table read on its own, before load(), for code that runs when the library is
// loaded (module_loading.cpp): the table's default where it is unset or malformed (load() reports that).
bool early_bool(const char *name);

// Parsers, exposed for unit tests. Each returns false on malformed text.
bool parse_bool(const char *text, bool *out);
bool parse_int(const char *text, int64_t *out);
// Sizes follow the OpenSHMEM 1.5 rules for SHMEM_SYMMETRIC_SIZE: a non-negative integer or decimal
// number ("0.5", ".5"), then optionally one suffix letter k/m/g/t (any case; anything after it is
// ignored); fractions of a byte round up.
bool parse_size(const char *text, uint64_t *out);

// The value of one variable as text (what is set, else the default) for gpushmem-info.
std::string value_text(const Var &v);
const char *type_name(Type t);

}  // namespace gpushmem::env
