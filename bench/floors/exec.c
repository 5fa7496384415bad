/* The exec floor (bench/launch.js): a static helper that only execs its
 * arguments, what any launcher costs before it does anything. */
#include <unistd.h>

int main(int argc, char *argv[])
{
	if (argc < 2)
		return 2;
	execv(argv[1], argv + 1);
	return 127;
}
