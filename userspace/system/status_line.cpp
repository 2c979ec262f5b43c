#include "system/status_line.h"

#include <unistd.h>

namespace fscost {

StatusLine::StatusLine(std::FILE* out, bool quiet, std::chrono::milliseconds delay,
                       std::chrono::milliseconds plain_every)
    : StatusLine(out, quiet, ::isatty(::fileno(out)) == 1, delay, plain_every) {}

StatusLine::StatusLine(std::FILE* out, bool quiet, bool tty, std::chrono::milliseconds delay,
                       std::chrono::milliseconds plain_every)
    : out_(out), quiet_(quiet), tty_(tty), delay_(delay), plain_every_(plain_every),
      start_(Clock::now()) {}

double StatusLine::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void StatusLine::draw_locked(const std::string& text, bool force_plain) {
  auto now = Clock::now();
  if (quiet_ || now - start_ < delay_) return;
  if (tty_) {
    if (now - last_draw_ < std::chrono::milliseconds(500) && shown_ && !force_plain) return;
    // \r and erase-to-end: the line is redrawn in place, never scrolled.
    std::fprintf(out_, "\r\033[K%s", text.c_str());
    shown_ = true;
  } else {
    if (!force_plain && now - last_draw_ < plain_every_ && last_draw_ != Clock::time_point{}) return;
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
  last_draw_ = now;
}

void StatusLine::update(const std::string& text) {
  std::lock_guard lock(mu_);
  draw_locked(text, false);
}

void StatusLine::stage(const std::string& text) {
  std::lock_guard lock(mu_);
  draw_locked(text, true);
}

void StatusLine::clear() {
  std::lock_guard lock(mu_);
  if (!shown_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

StatusTicker::StatusTicker(StatusLine& line, std::function<std::string()> text,
                           std::chrono::milliseconds period)
    : thread_([&line, text = std::move(text), period](std::stop_token stop) {
        while (!stop.stop_requested()) {
          line.update(text());
          // Sleep in small steps so the destructor does not wait a period.
          for (auto slept = std::chrono::milliseconds(0); slept < period && !stop.stop_requested();
               slept += std::chrono::milliseconds(50))
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }) {}

}  // namespace fscost
