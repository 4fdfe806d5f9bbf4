// What marks an error as the user's input being wrong (a scenario key, a platform or data file, an
// output folder, not enough memory for the scenario): the CLI prints its message as one line and
// exits 2; every other exception is an internal error (exit 1). Each module keeps its own error
// type and adds this mark, so the CLI needs no list of them and a new input error cannot be missed.
#pragma once

namespace edgetrain::util {

class InputError {
 public:
  virtual ~InputError() = default;
};

}  // namespace edgetrain::util
