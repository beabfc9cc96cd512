/* sysinfo.c: a one-line description of the machine for run.json and the
 * benchmark log. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

void fl_machine_description(char *out, int len)
{
    char model[160] = "unknown cpu";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *colon = strchr(line, ':');
                if (colon) {
                    snprintf(model, sizeof model, "%s", colon + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double gib = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0 * 1024.0);
    snprintf(out, (size_t)len, "%s, %ld cores, %.0f GiB", model, cores, gib);
}
