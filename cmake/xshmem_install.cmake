# The installed SDK: the CMake package (find_package(xshmem CONFIG)) and the pkg-config files.
#
#   cmake --install build --prefix P    lays out
#     P/include/xshmem/*.h, xshmem/device/*.h, xshmem/plugin/*.h   the public headers
#     P/include/shmem.h, pshmem.h, shmemx.h                        the OpenSHMEM names
#     P/include/nvshmem.h, nvshmemx.h                              the NVSHMEM names
#     P/lib/libxshmem.so*, P/lib/xshmem/libxshmem_*.so              the library and the plugins
#     P/bin/xshmem-run, xshmem-info, xshmem-perf                   the tools (RUNPATH $ORIGIN/../lib)
#     P/lib/cmake/xshmem/xshmemConfig.cmake, ...ConfigVersion.cmake targets xshmem::xshmem (the
#       API), xshmem::device (header-only device API), xshmem::plugin_sdk (plugin headers only)
#     P/lib/pkgconfig/xshmem.pc, xshmem-plugin.pc                  the same for pkg-config
#     P/bin/xshmem-cc, xshmem-c++                                  compiler wrappers (the same
#       flags; docs/compat.md, "Building programs")
# Every path in these files is relative to where they are installed, so the prefix can be moved
# (the wrappers find the prefix from their own location).
#
# The build tree gets its own variants, with the absolute paths of this build and its sources:
#   build/bin/xshmem-cc, xshmem-c++, build/lib/pkgconfig/xshmem.pc (PKG_CONFIG_PATH=build/lib/pkgconfig)
# Every variant gives the same flags: -I<each include folder>, and -L<libdir> -Wl,-rpath,<libdir>
# -lxshmem (the rpath: programs run without LD_LIBRARY_PATH). libxshmem carries the OpenSHMEM
# names itself and never links libcuda, so nothing else is linked.
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
string(REGEX REPLACE "/$" "" XSHMEM_PC_TO_PREFIX "${XSHMEM_PC_TO_PREFIX}")  # "../../": no "//lib"
foreach(pc xshmem xshmem-plugin)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/cmake/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# ---- The build tree's xshmem.pc ----
# pkg-config reads a blank in a path as a separator unless it is escaped.
set(XSHMEM_BUILD_INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/core/include ${PROJECT_SOURCE_DIR}/device/include
    ${PROJECT_SOURCE_DIR}/plugins/include)
set(XSHMEM_BUILD_LIB_DIR ${CMAKE_BINARY_DIR}/lib)  # libxshmem's LIBRARY_OUTPUT_DIRECTORY
set(XSHMEM_PC_BUILD_CFLAGS "")
foreach(d IN LISTS XSHMEM_BUILD_INCLUDE_DIRS)
  string(REPLACE " " "\\ " d "${d}")
  string(APPEND XSHMEM_PC_BUILD_CFLAGS " -I${d}")
endforeach()
string(STRIP "${XSHMEM_PC_BUILD_CFLAGS}" XSHMEM_PC_BUILD_CFLAGS)
string(REPLACE " " "\\ " XSHMEM_PC_BUILD_LIBDIR "${XSHMEM_BUILD_LIB_DIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/xshmem-build.pc.in
  ${CMAKE_BINARY_DIR}/lib/pkgconfig/xshmem.pc @ONLY)

# ---- Compiler wrappers: xshmem-cc (C, cc) and xshmem-c++ (C++, c++) ----
# xshmem_shell_quote(<var> <string>): <string> as one single-quoted shell word.
function(xshmem_shell_quote var str)
  string(REPLACE "'" "'\\''" str "${str}")
  set(${var} "'${str}'" PARENT_SCOPE)
endfunction()
# An installed path: absolute as configured, else under the prefix the wrapper computes.
function(xshmem_installed_dir var dir)
  if(IS_ABSOLUTE "${dir}")
    xshmem_shell_quote(q "${dir}")
    set(${var} "${q}" PARENT_SCOPE)
  else()
    set(${var} "\"$prefix/${dir}\"" PARENT_SCOPE)
  endif()
endfunction()
file(RELATIVE_PATH XW_BIN_TO_PREFIX "/p/${CMAKE_INSTALL_BINDIR}" "/p")
string(REGEX REPLACE "/$" "" XW_BIN_TO_PREFIX "${XW_BIN_TO_PREFIX}")
set(XW_LOCATE_install "# Installed: the prefix is found from this file's own location (through symlinks to it).
self=$(readlink -f -- \"\${BASH_SOURCE[0]}\")
prefix=$(cd -- \"\${self%/*}/${XW_BIN_TO_PREFIX}\" && pwd -P)")
xshmem_installed_dir(XW_INCDIRS_install "${CMAKE_INSTALL_INCLUDEDIR}")
xshmem_installed_dir(XW_LIBDIRS_install "${CMAKE_INSTALL_LIBDIR}")
set(XW_LOCATE_build "# The build tree ${CMAKE_BINARY_DIR}: its libxshmem, its sources' headers.")
set(XW_INCDIRS_build "")
foreach(d IN LISTS XSHMEM_BUILD_INCLUDE_DIRS)
  xshmem_shell_quote(q "${d}")
  string(APPEND XW_INCDIRS_build " ${q}")
endforeach()
string(STRIP "${XW_INCDIRS_build}" XW_INCDIRS_build)
xshmem_shell_quote(XW_LIBDIRS_build "${XSHMEM_BUILD_LIB_DIR}")
foreach(lang C CXX)
  if(lang STREQUAL "C")
    set(XW_NAME xshmem-cc)
    set(XW_ENV XSHMEM_CC)
    set(XW_DEFAULT cc)
    set(XW_LANG C)
  else()
    set(XW_NAME xshmem-c++)
    set(XW_ENV XSHMEM_CXX)
    set(XW_DEFAULT c++)
    set(XW_LANG C++)
  endif()
  foreach(XW_VARIANT build install)
    set(XW_LOCATE "${XW_LOCATE_${XW_VARIANT}}")
    set(XW_INCDIRS "${XW_INCDIRS_${XW_VARIANT}}")
    set(XW_LIBDIRS "${XW_LIBDIRS_${XW_VARIANT}}")
    if(XW_VARIANT STREQUAL "build")
      set(out_dir ${CMAKE_BINARY_DIR}/bin)
    else()
      set(out_dir ${PROJECT_BINARY_DIR}/cmake/install)
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/xshmem-cc.in ${out_dir}/${XW_NAME} @ONLY
      FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                       WORLD_EXECUTE)
  endforeach()
  install(PROGRAMS ${PROJECT_BINARY_DIR}/cmake/install/${XW_NAME}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
