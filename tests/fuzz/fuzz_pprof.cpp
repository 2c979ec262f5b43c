// libFuzzer target: pprof import (io/pprof.h), gzipped or raw, with a
// decompression limit small enough for the fuzzer's memory limit, then
// every output made from the profile (exercise.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "exercise.h"
#include "io/pprof.h"

// libprotobuf logs each string with invalid UTF-8 it parses ("[libprotobuf
// ERROR ...]"); the fuzzer makes many, and the parse fails anyway.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fscost::pprof::ImportOptions opt;
  opt.origin = "fuzz.pb.gz";
  opt.max_bytes = std::size_t{16} << 20;
  auto p = fscost::pprof::import_pprof(bytes, opt);
  if (p) fscost::fuzz::exercise(p.value());
  return 0;
}
