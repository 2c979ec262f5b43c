// analysis/assets/flamegraph.{js,css}, embedded at build time by
// analysis/assets/embed.cmake into flame_assets.cpp (in the build tree), so
// every SVG carries its own script and style.
#pragma once

#include <string_view>

namespace fscost::flame {

extern const std::string_view kFlamegraphJs;
extern const std::string_view kFlamegraphCss;

}  // namespace fscost::flame
