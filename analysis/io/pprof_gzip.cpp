// gzip for profile.proto files (io/pprof.h), with zlib.
#include <fmt/format.h>
#include <zlib.h>

#include "io/pprof.h"

namespace fscost::pprof {

namespace {

// windowBits 15 + 16: a gzip header and trailer, not zlib's.
constexpr int kGzipWindow = 15 + 16;

}  // namespace

Result<std::string> gzip(std::string_view raw) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Error{"zlib: deflateInit2 failed", ""};
  std::string out(deflateBound(&z, raw.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = raw.size() > UINT32_MAX ? Z_BUF_ERROR : deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    return Error{fmt::format("zlib: cannot compress {} bytes (rc {})", raw.size(), rc), ""};
  return out;
}

Result<std::string> gunzip(std::string_view data, std::size_t limit) {
  if (data.size() < 2 || static_cast<unsigned char>(data[0]) != 0x1f ||
      static_cast<unsigned char>(data[1]) != 0x8b) {
    if (data.size() > limit)
      return Error{fmt::format("{} bytes is more than the limit of {}", data.size(), limit), ""};
    return std::string(data);  // pprof reads a raw profile.proto too
  }
  z_stream z{};
  if (inflateInit2(&z, kGzipWindow) != Z_OK) return Error{"zlib: inflateInit2 failed", ""};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size(), UINT32_MAX));
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      return Error{fmt::format("more than {} bytes once decompressed", limit), ""};
    }
    if (rc == Z_BUF_ERROR && z.avail_in > 0) rc = Z_OK;  // output was full; go on
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return Error{fmt::format("not a complete gzip stream ({})", z.msg ? z.msg : "truncated"), ""};
  return out;
}

}  // namespace fscost::pprof
