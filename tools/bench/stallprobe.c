/*
 * stallprobe: how long each CPU was kept from running, while a benchmark runs.
 *
 *   stallprobe [--cpus 0,1] [--period-us 1000] [--threshold-us 2000]
 *
 * One thread per CPU, pinned there, wakes every period (an absolute CLOCK_MONOTONIC
 * deadline) and records how late it woke. It runs at SCHED_FIFO priority 1 when allowed, so
 * no ordinary thread (the server, touch-load) can delay it: what is left is time the CPU did
 * not run at all (the hypervisor ran another guest, or interrupts were off). Kernel threads
 * of ordinary priority (kdamond, kworkers) do not delay it either; they show in the
 * machine's CPU time instead. A wake-up later than the threshold is an episode.
 *
 * Runs until SIGINT or SIGTERM, then prints one JSON object on stdout: per CPU the wake-ups,
 * the episodes as [start, lateness] in ms (start on CLOCK_MONOTONIC, the clock Python's
 * time.monotonic() reads), their count, sum and longest, and the probe's own CPU time.
 * Costs a wake-up per period per CPU (about 0.5 % of a CPU here at 1 ms).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_CPUS 64
#define MAX_EPISODES 20000

struct probe {
    int cpu;
    long period_ns, threshold_ns;
    int realtime;
    long wakeups, count;
    double total_ms, max_ms;
    double episodes[MAX_EPISODES][2];
    pthread_t thread;
};

static atomic_int stopping;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *run(void *arg) {
    struct probe *p = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(p->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "stallprobe: cannot pin to CPU %d\n", p->cpu);
        exit(2);
    }
    struct sched_param sp = {.sched_priority = 1};
    p->realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
    long long next = now_ns();
    while (!atomic_load(&stopping)) {
        next += p->period_ns;
        struct timespec due = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR) {}
        long long now = now_ns();
        long long late = now - next;
        p->wakeups++;
        if (late >= p->threshold_ns) {
            double ms = late / 1e6;
            if (p->count < MAX_EPISODES) {
                p->episodes[p->count][0] = next / 1e6;
                p->episodes[p->count][1] = ms;
            }
            p->count++;
            p->total_ms += ms;
            if (ms > p->max_ms) p->max_ms = ms;
        }
        // After a stall, start again from now rather than firing the missed periods at once.
        if (late > p->period_ns) next = now;
    }
    return NULL;
}

static int parse_cpus(const char *s, int *cpus) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < MAX_CPUS; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long c = strtol(tok, &end, 10);
        if (*end || c < 0 || c >= CPU_SETSIZE) { free(copy); return -1; }
        cpus[n++] = (int)c;
    }
    free(copy);
    return n;
}

int main(int argc, char **argv) {
    int cpus[MAX_CPUS], ncpus = 0;
    long period_us = 1000, threshold_us = 2000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
            ncpus = parse_cpus(argv[++i], cpus);
        } else if (!strcmp(argv[i], "--period-us") && i + 1 < argc) {
            period_us = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--threshold-us") && i + 1 < argc) {
            threshold_us = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: stallprobe [--cpus 0,1] [--period-us 1000] [--threshold-us 2000]\n");
            return 2;
        }
    }
    if (ncpus == 0) { cpus[0] = 0; cpus[1] = 1; ncpus = 2; }
    if (ncpus < 0 || period_us < 100 || threshold_us < period_us) {
        fprintf(stderr, "stallprobe: bad --cpus, or --period-us under 100, or --threshold-us under the period\n");
        return 2;
    }

    // Block the signals in every thread; the main thread waits for them.
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    static struct probe probes[MAX_CPUS];
    for (int i = 0; i < ncpus; i++) {
        probes[i].cpu = cpus[i];
        probes[i].period_ns = period_us * 1000;
        probes[i].threshold_ns = threshold_us * 1000;
        if (pthread_create(&probes[i].thread, NULL, run, &probes[i]) != 0) {
            fprintf(stderr, "stallprobe: cannot start a thread\n");
            return 1;
        }
    }
    int sig;
    sigwait(&sigs, &sig);
    atomic_store(&stopping, 1);
    for (int i = 0; i < ncpus; i++) pthread_join(probes[i].thread, NULL);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    int realtime = 1;
    for (int i = 0; i < ncpus; i++) realtime &= probes[i].realtime;
    printf("{\"periodUs\": %ld, \"thresholdUs\": %ld, \"realtime\": %s, \"cpuSeconds\": %.3f, \"cpus\": [",
           period_us, threshold_us, realtime ? "true" : "false", cpu_s);
    for (int i = 0; i < ncpus; i++) {
        struct probe *p = &probes[i];
        printf("%s{\"cpu\": %d, \"wakeups\": %ld, \"count\": %ld, \"totalMs\": %.3f, \"maxMs\": %.3f, \"episodes\": [",
               i ? ", " : "", p->cpu, p->wakeups, p->count, p->total_ms, p->max_ms);
        long shown = p->count < MAX_EPISODES ? p->count : MAX_EPISODES;
        for (long e = 0; e < shown; e++)
            printf("%s[%.3f, %.3f]", e ? ", " : "", p->episodes[e][0], p->episodes[e][1]);
        printf("]}");
    }
    printf("]}\n");
    return 0;
}
