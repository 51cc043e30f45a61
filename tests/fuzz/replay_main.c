/*
 * A stand-in for libFuzzer's main(), for compilers without libFuzzer:
 * each argument is a corpus file, or a directory whose files are read in
 * name order, and each file is fed once to LLVMFuzzerTestOneInput.  It
 * only replays, it never mutates; tests/cli/fuzz_replay.sh builds every
 * target with it when clang's libFuzzer is not installed, so that
 * `make check` replays the committed corpora everywhere.  Exits 0 when
 * every input ran (a crash ends the process on its own), 2 when a file
 * cannot be read.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int
replay_file(const char *path, size_t *nrun)
{
	FILE		*f;
	uint8_t		*buf = NULL;
	size_t		 len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	if (ferror(f)) {
		perror(path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* Shrunk to the exact size, so that reads past the input are caught. */
	if ((buf = realloc(buf, len > 0 ? len : 1)) == NULL)
		abort();
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	(*nrun)++;
	return 0;
}

static int
replay_dir(const char *dir, size_t *nrun)
{
	struct dirent	**names;
	char		 *path;
	int		  n, i, rc = 0;

	if ((n = scandir(dir, &names, NULL, alphasort)) < 0) {
		perror(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
				abort();
			if (replay_file(path, nrun) != 0)
				rc = -1;
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat	st;
	size_t		nrun = 0;
	int		i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 2;
		} else if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &nrun) != 0 :
		    replay_file(argv[i], &nrun) != 0)
			rc = 2;
	}
	printf("%s: replayed %zu inputs\n", argv[0], nrun);
	return rc;
}
