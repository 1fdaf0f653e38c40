// Command line of gpushmemrun: gpushmemrun -n N [--timeout S] [--] program [args...]
#pragma once

#include <vector>

namespace gpushmemrun {

struct Options {
  int n = 0;                    // PEs to start
  int timeout_s = 0;            // end the job after this many seconds; 0: never
  std::vector<char *> program;  // program and its arguments, followed by a nullptr
};

enum class Parsed { run, done, usage_error };

// Parses argv. Prints help/version (done) or a message naming the bad argument (usage_error) itself.
Parsed parse_options(int argc, char **argv, Options *out);

}  // namespace gpushmemrun
