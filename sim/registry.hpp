#pragma once
// One registry template for every extension point (transforms, micro-schedules, send
// policies, algorithms, ...): a fixed table of names and factories, built once where the
// extension point is defined. Lookup by name; an unknown name is an error that names the
// parameter, the value and what is allowed, with a close-spelling suggestion.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/text.hpp"

namespace torus {

template <class Product, class... Args>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::function<std::unique_ptr<Product>(Args...)> make;
  };

  // `parameter` is the user-facing key the name is given for (e.g. "roll_policy").
  Registry(std::string parameter, std::vector<Entry> entries)
      : parameter_(std::move(parameter)), entries_(std::move(entries)) {}

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }
  bool contains(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return true;
    return false;
  }
  std::unique_ptr<Product> make(const std::string& name, Args... args) const {
    for (const Entry& e : entries_)
      if (e.name == name) return e.make(std::forward<Args>(args)...);
    throw std::invalid_argument(parameter_ + ": '" + name + "' is not allowed; allowed: " + join(names(), ", ") +
                                suggestion(name, names()));
  }

 private:
  std::string parameter_;
  std::vector<Entry> entries_;
};

}  // namespace torus
