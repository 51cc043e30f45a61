/*
 * The commands src/main.c dispatches to (HACKING.md, "The pipeline").
 * Each returns joulestat's exit status.
 */
#ifndef JOULESTAT_COMMANDS_H
#define JOULESTAT_COMMANDS_H

struct config;

/* joulestat [options] [--] COMMAND, or -p PID: measure (src/cli/run.c). */
int	cmd_run(const struct config *cfg);

/* joulestat --list-devices (src/cli/list.c). */
int	cmd_list_devices(const struct config *cfg);

/* joulestat merge [options] FILE...: argv[0] is "merge". */
int	merge_main(int argc, char **argv);

#endif
