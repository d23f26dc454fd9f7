#pragma once
// The message a bad input is refused with, for tests that check what the user is told.

#include <stdexcept>
#include <string>

namespace torus {

// The message of the std::invalid_argument `action` throws; "no error" when it throws none.
template <class Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace torus
