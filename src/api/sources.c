/*
 * sources.c: FluxLoadOptions.sources_inside, the confinement of a loaded
 * program's data sources to the folder of its file.
 *
 * A program may name any path as a data source (docs/language.md); one run
 * on another's request must not. The folder is fixed once, as a real path,
 * when the program loads, and every source is checked then (an error at
 * its declaration, so that a refused program never runs, nor is served a
 * result kept from an earlier run that read the file) and again by each
 * read (exec/data.c), since a link may change after the load.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "exec/data.h"

void fx_api_confine_sources(FluxProgram *fp)
{
    FxProgram *prog = fp->prog;
    char *root = fx_data_folder(prog->root->src->path);
    if (!root) { // the program's own folder is gone: nothing can be inside it
        fx_diag_error(&fp->diag, (FxSpan){0}, "cannot resolve the folder of `%s`, which its "
                      "data sources must lie in", prog->root->src->path);
        return;
    }
    prog->data_root = fx_arena_strdup(&prog->arena, root);
    free(root);
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxDataDecl *, d, &(*m)->data)
        {
            char *outside = fx_data_outside(*d, prog->data_root);
            if (outside)
                fx_diag_error(&fp->diag, (*d)->path_span, "data source `%s` reads `%s`, "
                              "outside the program's folder `%s`, where its sources must lie",
                              (*d)->name, outside, prog->data_root);
            free(outside);
        }
    }
}
