# Runs CMD and passes only when it exits with WANT_RC and its output (stdout and stderr) matches
# the regular expression WANT_RE; prints the output either way.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL ${WANT_RC})
  message(FATAL_ERROR "expected exit status ${WANT_RC}, got ${rc}")
endif()
if(NOT "${out}${err}" MATCHES "${WANT_RE}")
  message(FATAL_ERROR "no output line matches: ${WANT_RE}")
endif()
