# SetteeAddPlugin.cmake - settee_add_plugin() for plugins built out of tree
# against an installed settee (loaded by SetteeConfig.cmake).
#
# settee_add_plugin(NAME SOURCES src... [VERSION v] [LIBS lib...]
#                   [OUTPUT_DIR dir] [NO_INSTALL])
#
# Builds the MODULE library lib<NAME>.so (target <NAME>), which is the file
# name the loader looks for when a scene says RequiredPlugin: {pluginName: NAME}:
#   - compiled as C11 with hidden visibility, so the only exported symbol is
#     the descriptor made by ST_PLUGIN_DEFINE;
#   - SETTEE_PLUGIN_NAME ("NAME") and SETTEE_PLUGIN_VERSION ("v", default the
#     project's version) are defined for the sources, for ST_PLUGIN_DEFINE;
#   - linked against Settee::settee with --no-undefined, so a missing symbol
#     fails the link instead of the load;
#   - written to OUTPUT_DIR (default: the current binary dir), a folder you
#     can name in SETTEE_PLUGIN_PATH;
#   - installed (unless NO_INSTALL) into ${SETTEE_PLUGIN_INSTALL_DIR}, by
#     default <libdir>/settee/plugins under your project's prefix.
include_guard(GLOBAL)

if(NOT DEFINED SETTEE_PLUGIN_INSTALL_DIR)
  if(DEFINED CMAKE_INSTALL_LIBDIR)
    set(SETTEE_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/settee/plugins")
  else()
    set(SETTEE_PLUGIN_INSTALL_DIR "lib/settee/plugins")
  endif()
endif()

function(settee_add_plugin name)
  cmake_parse_arguments(P "NO_INSTALL" "VERSION;OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "settee_add_plugin(${name}): unexpected arguments: ${P_UNPARSED_ARGUMENTS} "
                        "(expected SOURCES, VERSION, LIBS, OUTPUT_DIR, NO_INSTALL)")
  endif()
  if(NOT name MATCHES "^[A-Za-z][A-Za-z0-9_.-]*$")
    message(FATAL_ERROR "settee_add_plugin(${name}): a plugin name is letters, digits, '_', '.' "
                        "and '-', starting with a letter (e.g. MechanicalLoad.Extra)")
  endif()
  if(NOT P_SOURCES)
    message(FATAL_ERROR "settee_add_plugin(${name}): no SOURCES given")
  endif()
  if(NOT P_VERSION)
    set(P_VERSION "${PROJECT_VERSION}")
  endif()
  if(NOT P_VERSION)
    set(P_VERSION "0.0.0")
  endif()

  add_library(${name} MODULE ${P_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib" SUFFIX ".so" OUTPUT_NAME "${name}"
    C_STANDARD 11 C_STANDARD_REQUIRED ON
    C_VISIBILITY_PRESET hidden)
  if(P_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${P_OUTPUT_DIR}")
  endif()
  target_compile_definitions(${name} PRIVATE
    SETTEE_PLUGIN_NAME="${name}" SETTEE_PLUGIN_VERSION="${P_VERSION}")
  target_link_libraries(${name} PRIVATE Settee::settee m ${P_LIBS})
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
  if(NOT P_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION "${SETTEE_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
