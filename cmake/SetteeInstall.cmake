# SetteeInstall.cmake - what `cmake --install` puts under the prefix (any
# prefix: nothing installed holds an absolute path into it):
#   bin/settee                          the program (RPATH $ORIGIN/../<libdir>)
#   <libdir>/libsettee.so.0.1.0         the kernel, soname libsettee.so.<major>
#   <libdir>/settee/plugins/lib*.so     the bundled plugins (cmake/SetteePlugin.cmake),
#                                       found next to libsettee by the loader
#   include/settee/*.h                  the public headers only
#   <libdir>/cmake/Settee/              find_package(Settee): Settee::settee and
#                                       settee_add_plugin(NAME SOURCES ...)
#   <libdir>/pkgconfig/settee.pc        for Make users
#   share/settee/template/              the copyable plugin project (sdk/template)
#   share/settee/examples/              the example plugins (sdk/examples)

set(SETTEE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Settee")

install(TARGETS ${SETTEE_INSTALLED_KERNEL} EXPORT SetteeTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" NAMELINK_COMPONENT Development
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/include/settee"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.h")

# The CMake package.
install(EXPORT SetteeTargets NAMESPACE Settee:: DESTINATION "${SETTEE_CMAKE_INSTALL_DIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/sdk/cmake/SetteeConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/sdk/SetteeConfig.cmake"
  INSTALL_DESTINATION "${SETTEE_CMAKE_INSTALL_DIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR SETTEE_PLUGIN_SUBDIR)
# 0.x: a newer minor may change the API, so only the same major.minor matches
# find_package(Settee 0.1). Plugins are guarded at run time by the ABI check.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/sdk/SetteeConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/sdk/SetteeConfig.cmake"
              "${PROJECT_BINARY_DIR}/sdk/SetteeConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/sdk/cmake/SetteeAddPlugin.cmake"
  DESTINATION "${SETTEE_CMAKE_INSTALL_DIR}")

# pkg-config: the prefix is found from the .pc file's own place.
file(STRINGS "${PROJECT_SOURCE_DIR}/sdk/include/settee/export.h" SETTEE_ABI_LINES REGEX "^#define ST_ABI_M")
string(REGEX REPLACE ".*ST_ABI_MAJOR ([0-9]+).*" "\\1" SETTEE_ABI_MAJOR "${SETTEE_ABI_LINES}")
string(REGEX REPLACE ".*ST_ABI_MINOR ([0-9]+).*" "\\1" SETTEE_ABI_MINOR "${SETTEE_ABI_LINES}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SETTEE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH SETTEE_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" SETTEE_PC_UP "${SETTEE_PC_UP}")
  set(SETTEE_PC_PREFIX "\${pcfiledir}/${SETTEE_PC_UP}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/sdk/pkgconfig/settee.pc.in"
  "${PROJECT_BINARY_DIR}/sdk/settee.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/sdk/settee.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# What plugin authors copy.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/template/"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/settee/template" PATTERN "build*" EXCLUDE)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/examples/"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/settee/examples" PATTERN "build*" EXCLUDE)
