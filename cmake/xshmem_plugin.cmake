# xshmem_add_plugin(<kind> <name> SOURCES ... [LIBS ...])
#
# Builds every plugin the same way (cf. rdma-core's buildlib/rdma_functions.cmake): a MODULE
# library named libxshmem_<kind>_<name>.so, linked with -Wl,--no-undefined, exporting only the
# entry symbol xshmem_<kind>_plugin_v1 through a version script. It links neither libxshmem nor
# libcuda: everything from the core comes through the services table.
function(xshmem_add_plugin kind name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  set(target xshmem_${kind}_${name})
  add_library(${target} MODULE ${P_SOURCES})
  set(vscript "${CMAKE_CURRENT_BINARY_DIR}/${target}.map")
  file(WRITE "${vscript}" "{\n  global: xshmem_${kind}_plugin_v1;\n  local: *;\n};\n")
  # backends/: code the transports share (backends/common).
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/plugins/include
    ${PROJECT_SOURCE_DIR}/backends)
  target_link_libraries(${target} PRIVATE ${P_LIBS})
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${vscript})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY "${XSHMEM_PLUGIN_BUILD_DIR}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    LINK_DEPENDS "${vscript}")
  install(TARGETS ${target} LIBRARY DESTINATION ${XSHMEM_PLUGIN_INSTALL_DIR})
endfunction()
