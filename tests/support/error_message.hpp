#pragma once
// The message of the exception of type Error that f() throws, or "no error".

#include <string>

namespace odemocap::test {

template <class Error, class F>
std::string error_message(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

} // namespace odemocap::test
