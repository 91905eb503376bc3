/*
 * fuzz.h - libFuzzer harnesses for every reader of user input (make fuzz),
 * and their replay in make check (replay.c: the same harness run over the
 * saved corpus tests/fuzz/corpus/NAME, built with the system compiler).
 *
 * The readers take file names, so a harness writes the input to a scratch
 * file of its own (fuzz_file) and calls the reader the tools call.  Each
 * checks the library's contract on the way: a reader returns 0, or -1
 * with a one-line message (fuzz_expect).  A crash, a sanitizer report, a
 * leak or a broken contract ends the run with the input saved.
 */
#ifndef NP_FUZZ_H
#define NP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write `size` bytes to the scratch file `name` (in this process's own
 * temporary folder, removed at exit); returns its path. */
const char *fuzz_file(const char *name, const void *data, size_t size);

/* The folder fuzz_file writes in. */
const char *fuzz_dir(void);

/* The contract: rc is 0 or -1, and -1 comes with a one-line message.
 * Aborts (a finding) otherwise. */
void fuzz_expect(int rc, const struct pl_err *err);

/* Split data at lines "----" into at most n parts (the files of a
 * several-file input); returns how many, their starts and sizes. */
size_t fuzz_split(const uint8_t *data, size_t size, size_t n,
    const uint8_t **part, size_t *len);

#endif
