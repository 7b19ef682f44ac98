# The installed SDK: the CMake package (find_package(xshmem CONFIG)) and the pkg-config files.
#
#   cmake --install build --prefix P    lays out
#     P/include/xshmem/*.h, xshmem/device/*.h, xshmem/plugin/*.h   the public headers
#     P/include/shmem.h, pshmem.h, shmemx.h                        the OpenSHMEM names
#     P/lib/libxshmem.so*, P/lib/xshmem/libxshmem_*.so              the library and the plugins
#     P/bin/xshmem-run, xshmem-info, xshmem-perf                   the tools (RUNPATH $ORIGIN/../lib)
#     P/lib/cmake/xshmem/xshmemConfig.cmake, ...ConfigVersion.cmake targets xshmem::xshmem (the
#       API), xshmem::device (header-only device API), xshmem::plugin_sdk (plugin headers only)
#     P/lib/pkgconfig/xshmem.pc, xshmem-plugin.pc                  the same for pkg-config
# Every path in these files is relative to where they are installed, so the prefix can be moved.
include(CMakePackageConfigHelpers)

# In-tree spellings of the package's targets, so a project can build against either.
add_library(xshmem::xshmem ALIAS xshmem)
add_library(xshmem::device ALIAS xshmem_device)
add_library(xshmem::plugin_sdk ALIAS xshmem_plugin_sdk)

set(XSHMEM_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/xshmem")
get_target_property(xshmem_lib_version xshmem VERSION)
get_target_property(xshmem_lib_soversion xshmem SOVERSION)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/xshmemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/xshmemConfig.cmake
  INSTALL_DESTINATION ${XSHMEM_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR
            XSHMEM_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/xshmemConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/xshmemConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/xshmemConfigVersion.cmake
        DESTINATION ${XSHMEM_CMAKE_INSTALL_DIR})

# pkg-config: ${pcfiledir} is the folder of the .pc file; the prefix is that many levels up.
file(RELATIVE_PATH XSHMEM_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
foreach(pc xshmem xshmem-plugin)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/cmake/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
