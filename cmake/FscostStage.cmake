# fscost_stage(NAME [LINKS...]): the static library fscost_NAME of a stage
# folder's sources (NAME/**/*.cpp), public headers named from the folder
# above it ("model/profile.h"), linking only the stages below it
# (docs/DESIGN.md; scripts/check_layers.py holds the includes to that order).
function(fscost_stage name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*.cpp)
  add_library(fscost_${name} STATIC ${sources})
  target_include_directories(fscost_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(fscost_${name} PUBLIC ${ARGN})
endfunction()
