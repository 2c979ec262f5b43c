# Writes OUT, a C++ file defining fscost::flame::kFlamegraphJs and
# kFlamegraphCss with the contents of JS and CSS as raw string literals.
# Run by analysis/CMakeLists.txt at build time: cmake -DJS=.. -DCSS=.. -DOUT=.. -P embed.cmake
set(delim "fscost_asset")
foreach(kind JS CSS)
  file(READ "${${kind}}" content)
  string(FIND "${content}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${${kind}} contains the raw-string delimiter )${delim}\"")
  endif()
  # The SVG wraps both in CDATA sections.
  string(FIND "${content}" "]]>" cdata_end)
  if(NOT cdata_end EQUAL -1)
    message(FATAL_ERROR "${${kind}} contains \"]]>\", which would end its CDATA section")
  endif()
  set(${kind}_CONTENT "${content}")
endforeach()
file(WRITE "${OUT}"
  "// Generated from analysis/assets by embed.cmake; do not edit.\n"
  "#include \"flame_assets.h\"\n\n"
  "namespace fscost::flame {\n\n"
  "const std::string_view kFlamegraphJs = R\"${delim}(${JS_CONTENT})${delim}\";\n\n"
  "const std::string_view kFlamegraphCss = R\"${delim}(${CSS_CONTENT})${delim}\";\n\n"
  "}  // namespace fscost::flame\n")
