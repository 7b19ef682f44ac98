# GPU conformance programs of the device API (gpudev), included by tests/gpu/CMakeLists.txt
# after its compile-option setup. One program per .cu; each runs under `xshmem-run -n 2`, exits
# 77 (CTest: skipped) where no GPU is usable, and prints one line per case.
set(XT_GPU_DEVICE_TESTS rma rma2 amo sig p2p ord coll mem stress)
foreach(t ${XT_GPU_DEVICE_TESTS})
  if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${t}.cu)
    continue()
  endif()
  add_executable(xshmem_gpu_${t} ${t}.cu)
  target_link_libraries(xshmem_gpu_${t} PRIVATE xshmem)
  set_target_properties(xshmem_gpu_${t} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_${t})
  add_test(NAME gpu.${t}.np2
           COMMAND ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_${t}>)
  set_tests_properties(gpu.${t}.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 PROCESSORS 2
    RUN_SERIAL TRUE LABELS "gpu;np2")
endforeach()

# The user build of README "Writing kernels": examples/gpu_ring.cu compiled like a user would
# (plain nvcc flags, no -rdc), run on 2 PEs.
if(EXISTS ${PROJECT_SOURCE_DIR}/examples/gpu_ring.cu)
  add_executable(xshmem_gpu_ring ${PROJECT_SOURCE_DIR}/examples/gpu_ring.cu)
  target_link_libraries(xshmem_gpu_ring PRIVATE xshmem)
  set_target_properties(xshmem_gpu_ring PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_ring)
  add_test(NAME gpu.example_ring.np2
           COMMAND ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_ring>)
  set_tests_properties(gpu.example_ring.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
    PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;np2")
endif()
