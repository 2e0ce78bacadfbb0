# expect_error.cmake - a ctest check that a program refuses its input: it
# must exit with a status other than 0 and 77 (skipped) and print a message
# on stderr that matches the regular expression EXPECT.
#
#   cmake -DEXE=prog "-DARGS=arg|arg|..." "-DEXPECT=regex"
#         [-DREQUIRE=file -DPACKAGE=name] -P expect_error.cmake
#
# ARGS are separated by '|'. With REQUIRE, a missing file prints "SKIPPED:"
# naming the Debian package (the test's SKIP_REGULAR_EXPRESSION).
if(DEFINED REQUIRE AND NOT EXISTS "${REQUIRE}")
  message("SKIPPED: ${REQUIRE} not found; it comes with the Debian package ${PACKAGE}")
  return()
endif()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${EXE}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit status: ${rc}\nstdout: ${out}\nstderr: ${err}")
if(NOT rc MATCHES "^[0-9]+$" OR rc EQUAL 0 OR rc EQUAL 77)
  message(FATAL_ERROR "expected a failure (exit status other than 0 and 77), got '${rc}'")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}'")
endif()
