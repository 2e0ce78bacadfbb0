/* sortfile.h - the `clsort sort` command: sorts files of keys (raw or .npy),
 * with values or a permutation, in chunks and a host merge when the input
 * does not fit the device. Uses only the public header. */
#ifndef CLSORT_TOOLS_SORTFILE_H
#define CLSORT_TOOLS_SORTFILE_H

/* Runs `clsort sort`; argv holds the words after "sort" (argc of them).
 * Returns the process exit status: 0 success, 2 usage error, 1 any other
 * failure. Prints its messages (and a progress line, on a terminal) to
 * stderr; writes outputs only through temporary files renamed into place. */
int clsort_cmd_sort(int argc, char **argv);

/* When >= 0, `clsort sort` writes the name of each temporary output it
 * creates (NUL-terminated) to this descriptor, for a parent process to
 * remove should this one die before it can (a crash inside the OpenCL
 * driver runs LLVM's signal handlers, not the command's). */
extern int clsort_sort_report_fd;

/* The usage paragraph of `clsort sort`, for `clsort help`: lines of at most
 * 80 columns, ending in a newline. */
extern const char clsort_sort_usage[];

#endif
