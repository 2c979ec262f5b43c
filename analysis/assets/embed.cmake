# Writes OUT, a C++ file defining fscost::flame::kFlamegraphJs and
# kFlamegraphCss with the contents of JS and CSS as raw string literals.
# Run by analysis/CMakeLists.txt at build time: cmake -DJS=.. -DCSS=.. -DOUT=.. -P embed.cmake
# Other assets pass -DNS=fscost::html -DNAME=Report -DHEADER=report/html/assets.h
# for fscost::html::kReportJs and kReportCss.
set(delim "fscost_asset")
if(NOT DEFINED NS)
  set(NS "fscost::flame")
  set(NAME "Flamegraph")
  set(HEADER "flame/assets.h")
endif()
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
  # The HTML report puts them in its page, in <script> and <style> elements
  # or inside inline SVGs.
  string(TOLOWER "${content}" lower)
  string(FIND "${lower}" "</s" html_end)
  if(NOT html_end EQUAL -1)
    message(FATAL_ERROR "${${kind}} contains \"</s\", which could end its HTML element")
  endif()
  set(${kind}_CONTENT "${content}")
endforeach()
file(WRITE "${OUT}"
  "// Generated from analysis/assets by embed.cmake; do not edit.\n"
  "#include \"${HEADER}\"\n\n"
  "namespace ${NS} {\n\n"
  "const std::string_view k${NAME}Js = R\"${delim}(${JS_CONTENT})${delim}\";\n\n"
  "const std::string_view k${NAME}Css = R\"${delim}(${CSS_CONTENT})${delim}\";\n\n"
  "}  // namespace ${NS}\n")
