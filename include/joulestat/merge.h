/*
 * joulestat merge FILE...: combine the summary CSVs of the ranks of one
 * job (DESIGN §6) into one job total.  A device that several ranks on one
 * host measured over overlapping windows (same host and device id) is one
 * device and is counted once; the workload's attributed energies, one
 * per rank's own processes, add up.
 */
#ifndef JOULESTAT_MERGE_H
#define JOULESTAT_MERGE_H

/*
 * The whole subcommand: argv[0] is "merge", then options and files.
 * Returns the exit status: 0, or EXIT_TOOL (125) for bad input.
 */
int	merge_main(int argc, char **argv);

#endif
