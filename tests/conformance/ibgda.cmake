# Conformance over the ibgda transport on the software NIC model (included at the end of
# CMakeLists.txt): every case group at 2, 3 and 4 CPU PEs, host threads posting mlx5 entries that
# the PEs' NIC model threads execute, their wire pinned to loopback. The 14 entries at 3 PEs took
# 126 s on the loaded 2-core machine (about 90 s in CI); the libfabric stress rows (STR-01 at
# 10^5 operations) and the sockets rma row (RMA-04 up to 1027 elements) were made cheaper to pay
# for them (libfabric.cmake). Entries conf.<group>.np<N>.ibgda_model,
# labels "conformance;<group>;np<N>;ibgda_model". STR-01 runs 10^5 operations there
# (XT_STR01_OPS): each is a round trip through two model threads.
if(NOT TARGET xshmem_transport_ibgda)
  return()
endif()
set(XT_IB_ENV "XSHMEM_TRANSPORTS=ibgda;XSHMEM_IBGDA_NIC=model;XSHMEM_IBGDA_MODEL_IFACE=lo")

function(xt_ib_entry group np env filter timeout)
  if(NOT TARGET conf_${group})
    return()
  endif()
  set(heap ${XT_HEAP_${group}})
  if(NOT heap)
    set(heap 64M)
  endif()
  if(group STREQUAL "err")
    list(APPEND env XSHMEM_CHECKS=1)
  endif()
  if(group STREQUAL "lock")
    list(APPEND env XSHMEM_WAIT_TIMEOUT=60s)  # as the hostshm lock entries
  endif()
  if(group STREQUAL "ctx")
    list(APPEND env XSHMEM_MAX_CONTEXTS=${XT_CTX_LIMIT})
  endif()
  set(name conf.${group}.np${np}.ibgda_model)
  add_test(NAME ${name} COMMAND ${XT_LAUNCHER} -n ${np} $<TARGET_FILE:conf_${group}> ${filter})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "${XT_IB_ENV};XSHMEM_SYMMETRIC_SIZE=${heap};XT_EXPECT_NPES=${np};${env}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${timeout}
    PROCESSORS ${np}
    RUN_SERIAL TRUE
    LABELS "conformance;${group};np${np};ibgda_model")
endfunction()

foreach(group rma amo sig p2p ord team coll coll_move coll_reduce ctx stress err init mem globals lock)
  foreach(np 2 3 4)
    set(env "")
    if(group STREQUAL "stress")
      set(env XT_STR01_OPS=100000)
    endif()
    xt_ib_entry(${group} ${np} "${env}" "" 300)
  endforeach()
endforeach()
