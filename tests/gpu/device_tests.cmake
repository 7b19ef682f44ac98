# GPU conformance programs of the device API (gpudev), included by tests/gpu/CMakeLists.txt
# after its compile-option setup. One program per .cu; each runs under `xshmem-run -n 2`, exits
# 77 (CTest: skipped) where no GPU is usable, and prints one line per case.
set(XT_GPU_DEVICE_TESTS rma rma2 amo sig p2p ord coll mem stress team coll_reduce)
# ---- STR rows in device columns (STR-01..06) ----
list(APPEND XT_GPU_DEVICE_TESTS stress_rows)
list(APPEND XT_GPU_DEVICE_TESTS coll_move)
# ---- collectives in several scopes at once (COLL-12/13) and device contexts (CTX) ----
list(APPEND XT_GPU_DEVICE_TESTS coll_scopes ctx)
# ---- distributed locks in the device column (LOCK-01) ----
list(APPEND XT_GPU_DEVICE_TESTS lock)
foreach(t ${XT_GPU_DEVICE_TESTS})
  add_executable(xshmem_gpu_${t} ${t}.cu)
  target_link_libraries(xshmem_gpu_${t} PRIVATE xshmem)
  # Device checked mode on: a false positive of the checks fails the suite.
  target_compile_definitions(xshmem_gpu_${t} PRIVATE XSHMEM_DEVICE_CHECKS=1)
  set_target_properties(xshmem_gpu_${t} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_${t})
  add_test(NAME gpu.${t}.np2
           COMMAND ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_${t}>)
  set_tests_properties(gpu.${t}.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 PROCESSORS 2
    RUN_SERIAL TRUE LABELS "gpu;np2")
endforeach()

# A lock wait that never ends stops the job with the waiting thread's report, not the time-out.
if(TEST gpu.lock.np2)
  set_property(TEST gpu.lock.np2 APPEND PROPERTY ENVIRONMENT "XSHMEM_WAIT_TIMEOUT=60s")
endif()

# gpu_coll_reduce again with each algorithm forced (the default entry runs auto).
if(TARGET xshmem_gpu_coll_reduce)
  foreach(algo direct rsag)
    add_test(NAME gpu.coll_reduce.${algo}.np2
             COMMAND ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_coll_reduce>)
    set_tests_properties(gpu.coll_reduce.${algo}.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
      PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;np2" ENVIRONMENT "XSHMEM_COLL_REDUCE_ALGO=${algo}")
  endforeach()
endif()

# The user build of README "Writing kernels": examples/gpu_ring.cu compiled like a user would
# (plain nvcc flags, no -rdc), run on 2 PEs.
add_executable(xshmem_gpu_ring ${PROJECT_SOURCE_DIR}/examples/gpu_ring.cu)
target_link_libraries(xshmem_gpu_ring PRIVATE xshmem)
set_target_properties(xshmem_gpu_ring PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_ring)
add_test(NAME gpu.example_ring.np2
         COMMAND ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_ring>)
set_tests_properties(gpu.example_ring.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;np2")

# ERR-11 (device_error_propagation): a device-side mistake on PE 0 stops the whole job, although
# PE 1 waits in a kernel; tests/conformance/death_check.sh checks how the job died (label
# "death"). Skipped (77) without a GPU.
add_executable(xshmem_gpu_err_device err_device.cu)
target_link_libraries(xshmem_gpu_err_device PRIVATE xshmem)
target_compile_definitions(xshmem_gpu_err_device PRIVATE XSHMEM_DEVICE_CHECKS=1)
set_target_properties(xshmem_gpu_err_device PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_err_device)
# The same program without device checks (the default for user kernels): the misaligned atomic
# faults, and the watchdog stops the job with XSHMEM_EXIT_DEVICE_FAULT (87).
add_executable(xshmem_gpu_err_device_unchecked err_device.cu)
target_link_libraries(xshmem_gpu_err_device_unchecked PRIVATE xshmem)
set_target_properties(xshmem_gpu_err_device_unchecked PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_err_device_unchecked)
set(XT_GPU_DEATH ${PROJECT_SOURCE_DIR}/tests/conformance/death_check.sh)
foreach(pair "bad_pe_put|xshmem: device p \\(block 3,0,0 thread 5,0,0\\): pe 7 out of range \\[0, 2\\) \\(pe 0\\)"
             "bad_pe_atomic|xshmem: device atomic \\(block 3,0,0 thread 5,0,0\\): pe -1 out of range \\[0, 2\\) \\(pe 0\\)"
             "nonsym_put|xshmem: device put \\(block 3,0,0 thread 5,0,0\\): address 0x[0-9a-f]+ \\+ 64 bytes is not inside the symmetric heap .*\\(pe 0\\)"
             "misaligned_atomic|xshmem: device atomic \\(block 3,0,0 thread 5,0,0\\): address 0x[0-9a-f]+ is misaligned \\(needs 8-byte alignment\\) \\(pe 0\\)"
             "past_heap_get|xshmem: device get \\(block 3,0,0 thread 5,0,0\\): address 0x[0-9a-f]+ \\+ 1099511627776 bytes is not inside .*\\(pe 0\\)"
             "null_put|xshmem: device put \\(block 3,0,0 thread 5,0,0\\): local buffer is NULL with 16 bytes to move .*\\(pe 0\\)")
  string(FIND "${pair}" "|" bar)
  string(SUBSTRING "${pair}" 0 ${bar} scenario)
  math(EXPR rs "${bar} + 1")
  string(SUBSTRING "${pair}" ${rs} -1 regex)
  add_test(NAME gpu.err11.${scenario}.np2
    COMMAND ${XT_GPU_DEATH} --np 2 --regex "${regex}" --max-seconds 10
            -- ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_err_device> ${scenario})
  set_tests_properties(gpu.err11.${scenario}.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
    PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;death;err;np2")
endforeach()
add_test(NAME gpu.err11.unchecked_misaligned_atomic.np2
  COMMAND ${XT_GPU_DEATH} --np 2 --status 87
          --regex "xshmem: device kernel: the GPU context failed \\(cudaErrorMisalignedAddress.*\\(pe 0\\)"
          --max-seconds 10
          -- ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_err_device_unchecked>
             misaligned_atomic)
set_tests_properties(gpu.err11.unchecked_misaligned_atomic.np2 PROPERTIES SKIP_RETURN_CODE 77
  TIMEOUT 60 PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;death;err;np2")
# INIT-05 from a device thread: xshmem_global_exit(42) in PE 0's kernel ends every PE with 42.
add_test(NAME gpu.init05.device_global_exit.np2
  COMMAND ${XT_GPU_DEATH} --np 2 --status 42
          --regex "xshmem: xshmem_global_exit \\(device, block 3,0,0 thread 5,0,0\\): status 42.*\\(pe 0\\)"
          --max-seconds 10
          -- ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_err_device_unchecked>
             global_exit)
set_tests_properties(gpu.init05.device_global_exit.np2 PROPERTIES SKIP_RETURN_CODE 77
  TIMEOUT 60 PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;death;np2")

# LIV-03 (wait_deadline), T column: a device wait past XSHMEM_WAIT_TIMEOUT=1s names the call,
# the PE and the value expected, and stops every PE with status 1 (even a stopped one).
add_executable(xshmem_gpu_liveness liveness.cu)
target_link_libraries(xshmem_gpu_liveness PRIVATE xshmem)
set_target_properties(xshmem_gpu_liveness PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin OUTPUT_NAME gpu_liveness)
set(dev_where "\\(device, block 1,0,0 thread 2,0,0\\)")
set(secs "waited [0-9]+\\.[0-9] s")
foreach(pair "wait_never|xshmem: xshmem_int32_wait_until ${dev_where}: pe 1 ${secs} for \\*ivar \\(0x[0-9a-f]+\\) == 5 \\(last seen 3\\)"
             "signal_never|xshmem: xshmem_signal_wait_until ${dev_where}: pe 1 ${secs} for \\*sig_addr \\(0x[0-9a-f]+\\) >= 7 \\(last seen 2\\)"
             "barrier_sleeper|xshmem: xshmem_barrier_all ${dev_where}: pe 0 ${secs} in round 0 for pe 1 \\(epoch [0-9]+"
             "stopped_peer|xshmem: xshmem_int32_wait_until ${dev_where}: pe 0 ${secs} for \\*ivar \\(0x[0-9a-f]+\\) == 5 \\(last seen 0\\)")
  string(FIND "${pair}" "|" bar)
  string(SUBSTRING "${pair}" 0 ${bar} scenario)
  math(EXPR rs "${bar} + 1")
  string(SUBSTRING "${pair}" ${rs} -1 regex)
  add_test(NAME gpu.live.LIV-03.${scenario}.np2
    COMMAND ${XT_GPU_DEATH} --np 2 --status 1 --regex "${regex}" --max-seconds 10
            -- ${CMAKE_BINARY_DIR}/bin/xshmem-run -n 2 $<TARGET_FILE:xshmem_gpu_liveness> ${scenario})
  set_tests_properties(gpu.live.LIV-03.${scenario}.np2 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
    ENVIRONMENT "XSHMEM_WAIT_TIMEOUT=1s" PROCESSORS 2 RUN_SERIAL TRUE LABELS "gpu;death;liveness;np2")
endforeach()
