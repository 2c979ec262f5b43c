#include "collector/map_sizes.h"

#include <algorithm>

namespace fscost {

MapSizes resolve_map_sizes(const MapSizeOptions& asked, unsigned cpus) {
  MapSizes out{};
  for (const MapSizeOption& o : kMapSizeOptions) {
    const auto& given = asked.*o.asked;
    std::uint64_t scaled = static_cast<std::uint64_t>(o.per_cpu) * std::max(1u, cpus);
    out.*o.size = given ? *given
                        : static_cast<std::uint32_t>(std::min<std::uint64_t>(
                              std::max<std::uint64_t>(o.floor, scaled), kMaxMapEntries));
  }
  return out;
}

}  // namespace fscost
