// Recoverable errors as values, and the one fatal user-facing error type.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace fscost {

// What failed and why; `hint` says how to fix it (printed on a "hint:" line).
struct Error {
  std::string message;
  std::string hint;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error err) : v_(std::move(err)) {}

  explicit operator bool() const { return std::holds_alternative<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& value() const& { return std::get<T>(v_); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Thrown for errors the user must act on; caught once, in main().
class UserError : public std::runtime_error {
 public:
  explicit UserError(Error e) : std::runtime_error(e.message), hint_(std::move(e.hint)) {}
  UserError(std::string message, std::string hint = {})
      : std::runtime_error(std::move(message)), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

// Unwraps a Result or throws its error as a UserError.
template <typename T>
T take(Result<T> r) {
  if (!r) throw UserError(r.error());
  return std::move(r).value();
}

}  // namespace fscost
