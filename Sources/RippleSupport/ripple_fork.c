/* Fork safety of the static Swift runtime.
 *
 * The Swift runtime's locks on Linux (swift::threading_impl::linux::ulock,
 * used by swift_once and the runtime's lazy mutexes) are PI futexes whose
 * word holds the owner's thread id, read from a per-thread cache
 * (ulock_get_tid()::tid). fork() copies the forking thread's cache into the
 * child, where that id belongs to the parent: a lock the child's first thread
 * takes then names a thread the kernel cannot find in the child, its unlock
 * fails, and a second thread waiting for it spins for ever. Clearing the
 * cache in the child makes the first lock read the child's real id.
 *
 * The cache is reachable only when the runtime is linked into this library
 * (the shipped libripple.so, built with -static-stdlib and
 * -DRIPPLE_STATIC_SWIFT_RUNTIME); with a shared libswiftCore.so it is that
 * library's private symbol, found through its symbol table instead. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ripple_support.h"

unsigned ripple_fork_generation;

#define ULOCK_TID_SYMBOL "_ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid"

#ifdef RIPPLE_STATIC_SWIFT_RUNTIME
extern __thread int ripple_swift_ulock_tid __asm__(ULOCK_TID_SYMBOL);
static int *ulock_tid_address(void) { return &ripple_swift_ulock_tid; }
#else
/* Offset of the cache in libswiftCore.so's TLS block, from its .symtab
   (read once, at load, in the parent); -1 when not found. */
static long ulock_tid_offset = -1;
static void *swift_core;

static long symtab_tls_offset(const char *path, const char *name) {
    long result = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr))) {
        const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            size_t size = (size_t)st.st_size;
            const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)m;
            if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shoff < size &&
                eh->e_shentsize == sizeof(ElfW(Shdr)) &&
                eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) <= size) {
                const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(m + eh->e_shoff);
                for (int i = 0; i < eh->e_shnum && result < 0; i++) {
                    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
                    const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
                    if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size) continue;
                    const ElfW(Sym) *syms = (const ElfW(Sym) *)(m + sh[i].sh_offset);
                    size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
                    for (size_t k = 0; k < n; k++) {
                        if (ELF64_ST_TYPE(syms[k].st_info) != STT_TLS || syms[k].st_name >= strs->sh_size) continue;
                        const char *s = (const char *)(m + strs->sh_offset + syms[k].st_name);
                        if (strncmp(s, name, strs->sh_size - syms[k].st_name) == 0) {
                            result = (long)syms[k].st_value;
                            break;
                        }
                    }
                }
            }
            munmap((void *)m, size);
        }
    }
    close(fd);
    return result;
}

static void find_swift_core(void) {
    swift_core = dlopen("libswiftCore.so", RTLD_LAZY | RTLD_NOLOAD);
    if (!swift_core) return;
    struct link_map *lm = NULL;
    if (dlinfo(swift_core, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name) return;
    ulock_tid_offset = symtab_tls_offset(lm->l_name, ULOCK_TID_SYMBOL);
}

static int *ulock_tid_address(void) {
    void *block = NULL;
    if (ulock_tid_offset < 0 || dlinfo(swift_core, RTLD_DI_TLS_DATA, &block) != 0 || !block) return NULL;
    return (int *)((char *)block + ulock_tid_offset);
}
#endif

/* The forking thread's cache, found in the parent (the child has the same
   address) so the child handler does nothing but a store. */
static int *forking_thread_tid;

static void ripple_fork_prepare(void) { forking_thread_tid = ulock_tid_address(); }

/* Runs in the child, on its only thread, before fork() returns there. */
static void ripple_fork_child(void) {
    if (forking_thread_tid) *forking_thread_tid = 0;
    __atomic_add_fetch(&ripple_fork_generation, 1, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void ripple_fork_install(void) {
#ifndef RIPPLE_STATIC_SWIFT_RUNTIME
    find_swift_core();
#endif
    pthread_atfork(ripple_fork_prepare, NULL, ripple_fork_child);
}
