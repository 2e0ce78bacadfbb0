# The spgemm example's tests (included from examples/CMakeLists.txt).
# Every product is checked against the CPU product by the program itself;
# it exits 1 on a mismatch and 77 (skipped) without an OpenCL platform or,
# with --skip-missing, without the Debian package that ships a matrix.

set(SPGEMM_DATA ${CMAKE_CURRENT_SOURCE_DIR}/spgemm/testdata)

# Real matrices from Debian packages (paths may be overridden):
#   r-cran-matrix        lund_a.mtx lund_a.rsa pores_1.mtx utm300.rua jgl009.mtx wrong.mtx
#   libsuperlu-dist-dev  big.rua g20.rua g4.rua
set(SPGEMM_RMATRIX_DIR "/usr/lib/R/library/Matrix/external" CACHE PATH
    "Folder of the matrices of the Debian package r-cran-matrix")
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(spgemm_multiarch ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(spgemm_multiarch x86_64-linux-gnu)
endif()
set(SPGEMM_SUPERLU_DIR "/usr/lib/${spgemm_multiarch}/superlu-dist/tests/EXAMPLE" CACHE PATH
    "Folder of the matrices of the Debian package libsuperlu-dist-dev")

set(spgemm_tests "")
macro(spgemm_test name)
  add_test(NAME ${name} COMMAND spgemm ${ARGN})
  list(APPEND spgemm_tests ${name})
endmacro()

# Every shipped real matrix, A * A and A * A^T.
spgemm_test(example_spgemm_rmatrix
  --op both --reps 1 --no-random --skip-missing r-cran-matrix
  ${SPGEMM_RMATRIX_DIR}/jgl009.mtx ${SPGEMM_RMATRIX_DIR}/lund_a.mtx
  ${SPGEMM_RMATRIX_DIR}/lund_a.rsa ${SPGEMM_RMATRIX_DIR}/pores_1.mtx
  ${SPGEMM_RMATRIX_DIR}/utm300.rua)
spgemm_test(example_spgemm_superlu
  --op both --reps 1 --no-random --skip-missing libsuperlu-dist-dev
  ${SPGEMM_SUPERLU_DIR}/big.rua ${SPGEMM_SUPERLU_DIR}/g20.rua ${SPGEMM_SUPERLU_DIR}/g4.rua)
# The two readers agree: lund_a in Harwell-Boeing equals lund_a in Matrix Market.
spgemm_test(example_spgemm_lund_formats
  --op aat --reps 1 --no-random --skip-missing r-cran-matrix
  --same-as ${SPGEMM_RMATRIX_DIR}/lund_a.mtx ${SPGEMM_RMATRIX_DIR}/lund_a.rsa)

# Generated matrices: u32 keys (poisson2d:40, poisson3d:12, powerlaw:20000:4)
# and u64 keys (poisson2d:300 and powerlaw:70000:3, whose n^2 exceeds 2^32),
# with the sort of random keys for comparison.
spgemm_test(example_spgemm_generated
  --op both --reps 2
  --gen poisson2d:40 --gen poisson3d:12 --gen powerlaw:20000:4
  --gen poisson2d:300 --gen powerlaw:70000:3)
# Small cases: one entry (on and off the diagonal, where A * A has no
# products), empty rows and columns, a rectangular pattern matrix (A * A is
# skipped), integer skew-symmetric, and Harwell-Boeing with packed
# fixed-width fields.
spgemm_test(example_spgemm_small
  --op both --reps 1
  ${SPGEMM_DATA}/one_entry.mtx ${SPGEMM_DATA}/one_offdiag.mtx ${SPGEMM_DATA}/empty_rows.mtx
  ${SPGEMM_DATA}/rectangular.mtx ${SPGEMM_DATA}/skew.mtx ${SPGEMM_DATA}/good.rua
  ${SPGEMM_DATA}/packed.rua)
# The Fortran field reader: packed.rua holds the matrix of packed.mtx.
spgemm_test(example_spgemm_fortran_fields
  --op aa --reps 1 --no-random --same-as ${SPGEMM_DATA}/packed.mtx ${SPGEMM_DATA}/packed.rua)
# A * B with a second matrix.
spgemm_test(example_spgemm_a_times_b
  --op aa --reps 1 --b ${SPGEMM_DATA}/rect_b.mtx ${SPGEMM_DATA}/rectangular.mtx)

set_tests_properties(${spgemm_tests} PROPERTIES
  SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "${EXAMPLE_TEST_ENV}")

# Inputs that must be refused with a clear message (no OpenCL needed: the
# files are read before a context is created).
function(spgemm_error_test name expect)
  string(REPLACE ";" "|" args "${ARGN}")
  add_test(NAME example_spgemm_bad_${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:spgemm> "-DARGS=${args}"
                   "-DEXPECT=${expect}" ${SPGEMM_ERROR_EXTRA}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/spgemm/expect_error.cmake)
  set_tests_properties(example_spgemm_bad_${name} PROPERTIES
    SKIP_REGULAR_EXPRESSION "SKIPPED:" TIMEOUT 60 ENVIRONMENT "${EXAMPLE_TEST_ENV}")
endfunction()

set(d ${SPGEMM_DATA})
spgemm_error_test(header "bad_header.mtx:1: bad Matrix Market header" ${d}/bad_header.mtx)
spgemm_error_test(zero_index "zero_index.mtx:3: row index 0 out of range 1..3"
                  ${d}/zero_index.mtx)
spgemm_error_test(column_range "col_range.mtx:5: column index 9 out of range 1..4"
                  ${d}/col_range.mtx)
spgemm_error_test(too_few
  "too_few.mtx:5: the file ends after 3 of the 5 entries declared on line 2" ${d}/too_few.mtx)
spgemm_error_test(too_many "too_many.mtx:5: more entries than the 2 declared on line 2"
                  ${d}/too_many.mtx)
spgemm_error_test(value "bad_value.mtx:4: value 'abc' is not a number" ${d}/bad_value.mtx)
spgemm_error_test(size_line "bad_size.mtx:2: the size line must hold 3 numbers"
                  ${d}/bad_size.mtx)
spgemm_error_test(missing_field
  "missing_field.mtx:4: expected 3 fields .row column value., found 2" ${d}/missing_field.mtx)
spgemm_error_test(upper_symmetric "upper_symmetric.mtx:4: entry .1, 2. lies above the diagonal"
                  ${d}/upper_symmetric.mtx)
spgemm_error_test(complex "complex.mtx:1: complex matrices are not supported" ${d}/complex.mtx)
spgemm_error_test(array "array.mtx:1: dense 'array' files are not supported" ${d}/array.mtx)
spgemm_error_test(integer "integer_value.mtx:3: value '1.5' is not an integer"
                  ${d}/integer_value.mtx)
spgemm_error_test(not_a_matrix "not_a_matrix.txt:2: not a Harwell-Boeing header"
                  ${d}/not_a_matrix.txt)
spgemm_error_test(hb_pointer "bad_pointer.rua:5: column pointers: 4 is less than the 5 before it"
                  ${d}/bad_pointer.rua)
spgemm_error_test(hb_row "bad_row.rua:6: row indices: 7 out of range 1..4" ${d}/bad_row.rua)
spgemm_error_test(hb_truncated "truncated.rua:7: the file ends in the values after 3 of 5 values"
                  ${d}/truncated.rua)
spgemm_error_test(hb_complex "complex.cua:3: complex matrices .type CUA. are not supported"
                  ${d}/complex.cua)
spgemm_error_test(missing_file "no_such_file.mtx: cannot open" ${d}/no_such_file.mtx)
spgemm_error_test(shape "cannot form A . A for rectangular.mtx: A is 3 x 5"
                  --op aa ${d}/rectangular.mtx)
spgemm_error_test(generator "bad --gen 'poisson2d:0'" --gen poisson2d:0)
# The malformed file that r-cran-matrix ships (skipped without the package).
set(SPGEMM_ERROR_EXTRA -DREQUIRE=${SPGEMM_RMATRIX_DIR}/wrong.mtx -DPACKAGE=r-cran-matrix)
spgemm_error_test(rmatrix_wrong "wrong.mtx:3: row index 0 out of range 1..2"
                  ${SPGEMM_RMATRIX_DIR}/wrong.mtx)
unset(SPGEMM_ERROR_EXTRA)
unset(d)
