/* plugin_file.c - checks a candidate plugin file before dlopen: a regular
 * file whose ELF header, program headers and section headers all lie inside
 * the file. An interrupted copy (a valid header, a truncated body) would
 * otherwise be mapped by the dynamic loader and crash the process with
 * SIGBUS when it touches a page past the end of the file. Files that do not
 * start with the ELF magic are left to dlopen, whose message says why. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/loader.h"

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
typedef Elf64_Shdr shdr_t;
#define NATIVE_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
typedef Elf32_Shdr shdr_t;
#define NATIVE_CLASS ELFCLASS32
#endif

/* Reads exactly size bytes at off; false on a short read or an error. */
static bool read_at(int fd, void *buf, size_t size, uint64_t off)
{
    size_t got = 0;
    while (got < size) {
        ssize_t k = pread(fd, (char *)buf + got, size - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        got += (size_t)k;
    }
    return true;
}

/* len bytes at off lie inside a file of fsize bytes. */
static bool range_fits(uint64_t off, uint64_t len, uint64_t fsize)
{
    return off <= fsize && len <= fsize - off;
}

/* A table of n entries of esize bytes at off fits in a file of fsize bytes. */
static bool table_fits(uint64_t off, uint64_t n, uint64_t esize, uint64_t fsize)
{
    if (n == 0)
        return true;
    if (esize == 0 || n > UINT64_MAX / esize)
        return false;
    return range_fits(off, n * esize, fsize);
}

static st_status damaged(st_error *err, const char *file, const char *why, uint64_t fsize)
{
    return st_error_set(err, ST_EPLUGIN,
                        "plugin file %s is damaged: %s (the file has %llu bytes; an "
                        "interrupted copy or build? reinstall or rebuild it)",
                        file, why, (unsigned long long)fsize);
}

st_status st__plugin_file_check(const char *file, st_error *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return st_error_set(err, ST_EPLUGIN, "cannot open plugin file %s: %s", file,
                            strerror(errno));
    struct stat sb;
    st_status s = ST_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        s = st_error_set(err, ST_EPLUGIN, "plugin file %s is not a regular file", file);
        close(fd);
        return s;
    }
    uint64_t fsize = (uint64_t)sb.st_size;
    unsigned char ident[EI_NIDENT];
    if (!read_at(fd, ident, sizeof ident, 0) || memcmp(ident, ELFMAG, SELFMAG) != 0) {
        close(fd); /* not ELF (or shorter than its magic): dlopen says why */
        return ST_OK;
    }
    if (ident[EI_CLASS] != NATIVE_CLASS) {
        close(fd); /* another word size: dlopen refuses it from the header alone */
        return ST_OK;
    }
    ehdr_t eh;
    if (!read_at(fd, &eh, sizeof eh, 0)) {
        close(fd);
        return damaged(err, file, "it ends inside its ELF header", fsize);
    }
    if (eh.e_phnum && eh.e_phentsize != sizeof(phdr_t))
        s = damaged(err, file, "its program header size is wrong", fsize);
    else if (!table_fits(eh.e_phoff, eh.e_phnum, sizeof(phdr_t), fsize))
        s = damaged(err, file, "its program header table lies past the end of the file", fsize);
    else if (eh.e_shnum && eh.e_shentsize != sizeof(shdr_t))
        s = damaged(err, file, "its section header size is wrong", fsize);
    else if (!table_fits(eh.e_shoff, eh.e_shnum, sizeof(shdr_t), fsize))
        s = damaged(err, file, "its section header table lies past the end of the file", fsize);
    for (unsigned i = 0; s == ST_OK && i < eh.e_phnum; i++) {
        phdr_t ph;
        if (!read_at(fd, &ph, sizeof ph, eh.e_phoff + (uint64_t)i * sizeof ph))
            s = damaged(err, file, "its program headers cannot be read", fsize);
        else if (ph.p_type != PT_NULL && !range_fits(ph.p_offset, ph.p_filesz, fsize))
            s = damaged(err, file, "a segment lies past the end of the file", fsize);
    }
    for (unsigned i = 0; s == ST_OK && i < eh.e_shnum; i++) {
        shdr_t sh;
        if (!read_at(fd, &sh, sizeof sh, eh.e_shoff + (uint64_t)i * sizeof sh))
            s = damaged(err, file, "its section headers cannot be read", fsize);
        else if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
                 !range_fits(sh.sh_offset, sh.sh_size, fsize))
            s = damaged(err, file, "a section lies past the end of the file", fsize);
    }
    close(fd);
    return s;
}
