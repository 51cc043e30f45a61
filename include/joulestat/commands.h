/*
 * The commands src/main.c dispatches to (HACKING.md, "The pipeline").
 * Each returns joulestat's exit status.
 */
#ifndef JOULESTAT_COMMANDS_H
#define JOULESTAT_COMMANDS_H

struct config;

/* joulestat [options] [--] COMMAND, or -p PID: measure (src/cli/cmd_run.c). */
int	cmd_run(const struct config *cfg);

/* joulestat --list-devices (src/cli/cmd_list.c). */
int	cmd_list_devices(const struct config *cfg);

/*
 * joulestat merge [options] FILE... (src/cli/cmd_merge.c): argv[0] is
 * "merge".  Returns 0, or EXIT_TOOL (125) for bad input.
 */
int	merge_main(int argc, char **argv);

/* joulestat mark [--begin | --end] [NAME] (cmd_mark.c). */
int	mark_main(int argc, char **argv);

#endif
