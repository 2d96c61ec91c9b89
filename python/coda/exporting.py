"""Export of PyTorch functions as linalg on tensors (torch-mlir's fx.export_and_import), the
way coda's tools read them.

torch-mlir lowers `index_copy` (transformers' StaticCache.update writes the new keys and values
with `index_copy_`, or `cache[:, :, cache_position] = new` where that is missing: an
`index_put` along one dimension) to a TMTensor scatter, which is no linalg and which coda cannot
read. The decompositions here write both as selects instead — row j of the cache takes the new row t where
j = index[t] — which stay linalg, and which `--coda-fuse` reads back as `coda.append`.
"""
import torch


def _index_copy(x, dim, index, source):
    """x with its rows index[t] along dim replaced by source's rows t, as selects."""
    n = x.shape[dim]
    shape = [1] * x.dim()
    shape[dim] = n
    rows = torch.arange(n, device=x.device).view(shape)
    out = x
    for t in range(index.shape[0]):
        out = torch.where(rows == index[t], source.narrow(dim, t, 1), out)
    return out


def _index_put(x, indices, values, accumulate=False):
    """`x[..., index, ...] = values` along one dimension (transformers' fallback when
    index_copy_ is missing) as index_copy; other index_puts as torch-mlir lowers them."""
    picked = [(dim, index) for dim, index in enumerate(indices) if index is not None]
    if accumulate or len(picked) != 1 or picked[0][1].dim() != 1 or \
            picked[0][1].dtype == torch.bool or len(indices) > x.dim():
        return NotImplemented
    dim, index = picked[0]
    shape = list(x.shape)
    shape[dim] = index.shape[0]
    return _index_copy(x, dim, index, values.expand(shape))


def decomposition_table():
    """torch-mlir's default decompositions and coda's (index_copy and the index_put of one
    dimension as selects)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    table = dict(get_decomposition_table())
    table[torch.ops.aten.index_copy.default] = _index_copy
    table[torch.ops.aten.index_put.default] = _index_put
    return table


def export(fn, *args, name="main"):
    """`fn(*args)` as the text of a linalg-on-tensors module, the function named `name`. Inputs
    that `fn` updates in place (a KV cache) become results after `fn`'s own."""
    from torch_mlir import fx

    class Wrapper(torch.nn.Module):
        def forward(self, *xs):
            return fn(*xs)

    return str(fx.export_and_import(Wrapper(), *args, output_type="linalg-on-tensors",
                                    func_name=name, decomposition_table=decomposition_table()))
