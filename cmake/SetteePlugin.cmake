# settee_add_plugin(NAME SOURCES src... [LIBS lib...] [OUTPUT_DIR dir])
# Builds lib<NAME>.so, a settee plugin, against the public headers. Used by
# the bundled plugins; the installed SDK ships an equivalent function.
function(settee_add_plugin name)
  cmake_parse_arguments(P "" "OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  set(target "plugin_${name}")
  foreach(src ${P_SOURCES})
    if(NOT IS_ABSOLUTE "${src}")
      set(src "${CMAKE_CURRENT_SOURCE_DIR}/${src}")
    endif()
    if(NOT EXISTS "${src}")
      message(WARNING "plugin ${name} skipped: source ${src} does not exist")
      return()
    endif()
  endforeach()
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME "${name}" PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    INSTALL_RPATH "$ORIGIN/../.."
    LIBRARY_OUTPUT_DIRECTORY "$<IF:$<BOOL:${P_OUTPUT_DIR}>,${P_OUTPUT_DIR},${SETTEE_BUILD_PLUGIN_DIR}>")
  target_compile_options(${target} PRIVATE ${SETTEE_WARNINGS})
  target_link_libraries(${target} PRIVATE settee_sdk ${P_LIBS})
  if(NOT P_OUTPUT_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION "${SETTEE_PLUGIN_SUBDIR}")
  endif()
endfunction()
