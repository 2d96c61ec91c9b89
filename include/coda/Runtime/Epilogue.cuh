//===- Epilogue.cuh - coda's epilogue visitor nodes for CUTLASS sm90 ------===//
//
// Nodes of CUTLASS's Epilogue Visitor Tree (sm90, TMA warp-specialized) that CUTLASS lacks:
//
//   IndexedCompute<Fn>  a compute node whose functor also receives each element's global row
//                       and column: for index-dependent epilogues and for pairwise epilogues,
//                       whose functor works on the adjacent column pairs of a fragment.
//   GlobalLoad<T, P>    an operand read at each element's coordinates: an [M, N] matrix, or,
//                       with a period P, an [M, P] table read at column j mod P (RoPE's cos/sin);
//                       a fragment's column pairs are read two elements at a time.
//                       (An [M, N] operand typed like D goes through CUTLASS's Sm90SrcFetch
//                       instead: a TMA load of the collective's C.)
//   TableLoad<S, E, T, P>  the [M, P] table through TMA: CUTLASS's Sm90AuxLoad (the epilogue's
//                       producer warp loads each subtile into shared memory ahead of the
//                       consumers, which read it with ldmatrix), its columns taken mod P.
//   GlobalStore<T, C>   a second output written at each element's coordinates: as is, one value
//                       per column pair (pairwise contract: [M, N/2]), or two values per element
//                       (pairwise expand: [M, 2N]).
//   HalvesStore<S, E, T, P>  a pairwise(rotate, halves P) result written into its heads' halves
//                       by TMA stores, from a shared-memory subtile staged half by half.
//   ContractStore<S, E, T>  a pairwise(contract) result ([M, N/2]) written by TMA stores, from a
//                       shared-memory subtile of EpiN/2 columns (both of HalvesStore and
//                       ContractStore are a StagedStore: the same node with its own placement).
//   TakeFirst           the root of a DAG whose other outputs are side effects.
//   WithoutD            a DAG for a kernel with no result in the collective's D.
//
// Coordinates: the collective hands each node a thread's coordinate tensor relative to its first
// element and the residue (M, N) − first element; the global coordinate is their sum.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_EPILOGUE_CUH
#define CODA_RUNTIME_EPILOGUE_CUH

#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp"
#include "cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp"

namespace coda::rt {

using cutlass::Array;
using cutlass::epilogue::fusion::detail::EmptyConsumerStoreCallbacks;
using cutlass::epilogue::fusion::detail::EmptyProducerLoadCallbacks;

/// Global (row, column) of the elements of a thread's epilogue fragments, in product `l` of a
/// batch (0 unbatched).
template <class ThrCoords> struct FragmentCoords {
  ThrCoords tCcD;
  int m0, n0, M, N, l;

  template <int F>
  CUTLASS_DEVICE void get(int epi_v, int epi_m, int epi_n, Array<int, F> &rows,
                          Array<int, F> &cols) const {
    auto c = tCcD(cute::_, cute::_, cute::_, epi_m, epi_n);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < F; ++i) {
      auto rc = c(epi_v * F + i);
      rows[i] = m0 + int(cute::get<0>(rc));
      cols[i] = n0 + int(cute::get<1>(rc));
    }
  }
};

template <class Args> CUTLASS_DEVICE auto fragmentCoords(Args const &args) {
  auto [M, N, K, L] = args.problem_shape_mnkl;
  int m = int(M), n = int(N);
  return FragmentCoords<decltype(args.tCcD)>{args.tCcD, m - int(cute::get<0>(args.residue_tCcD)),
                                             n - int(cute::get<1>(args.residue_tCcD)), m, n,
                                             int(cute::get<3>(args.tile_coord_mnkl))};
}

/// Members every node without device-side state shares.
/// The host side of a node that any arguments suit and that needs no workspace.
struct NoWorkspace {
  template <class ProblemShape, class Arguments>
  static bool can_implement(ProblemShape const &, Arguments const &) { return true; }
  template <class ProblemShape, class Arguments>
  static size_t get_workspace_size(ProblemShape const &, Arguments const &) { return 0; }
  template <class ProblemShape, class Arguments>
  static cutlass::Status initialize_workspace(ProblemShape const &, Arguments const &, void *,
                                              cudaStream_t, cutlass::CudaHostAdapter * = nullptr) {
    return cutlass::Status::kSuccess;
  }
};

struct NodeBase : NoWorkspace {
  struct SharedStorage {};
  CUTLASS_DEVICE bool is_producer_load_needed() const { return false; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return false; }
  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(Args const &...) {
    return EmptyProducerLoadCallbacks{};
  }
};

/// A node with host-side arguments that reads each element's coordinates: the arguments are
/// its parameters, and its callbacks get the coordinates and the parameters.
template <template <class> class Callbacks, class Args> struct CoordNode : NodeBase {
  using Arguments = Args;
  using Params = Args;
  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const &, Arguments const &args,
                                                  void *) {
    return args;
  }
  CUTLASS_HOST_DEVICE CoordNode() {}
  CUTLASS_HOST_DEVICE CoordNode(Params const &params, SharedStorage const &) : params(params) {}
  // A member, which also keeps the node from being an empty class: cute::tuple returns empty
  // elements by value, and the visitor needs references to its nodes.
  Params params;

  template <bool ReferenceSrc, class... A>
  CUTLASS_DEVICE auto
  get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<A...> const &args) {
    auto coords = fragmentCoords(args);
    return Callbacks<decltype(coords)>(coords, params);
  }
};

/// out = Fn(rows, cols, acc, inputs...) on fp32 fragments.
struct NoArguments {};
template <template <int> class Fn> struct IndexedComputeCallbacks {
  template <class Coords> struct type : EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE type(Coords coords, NoArguments const &) : coords(coords) {}
    Coords coords;

    template <class ElementAcc, class... ElementInputs, int F>
    CUTLASS_DEVICE Array<float, F> visit(Array<ElementAcc, F> const &frg_acc, int epi_v, int epi_m,
                                         int epi_n, Array<ElementInputs, F> const &...inputs) {
      Array<int, F> rows, cols;
      coords.get(epi_v, epi_m, epi_n, rows, cols);
      return Fn<F>{}(rows, cols, toFloat(frg_acc), toFloat(inputs)...);
    }

    template <class E, int F> CUTLASS_DEVICE static Array<float, F> toFloat(Array<E, F> const &x) {
      return cutlass::NumericArrayConverter<float, E, F>{}(x);
    }
  };
};
template <template <int> class Fn>
struct IndexedCompute : CoordNode<IndexedComputeCallbacks<Fn>::template type, NoArguments> {
  using CoordNode<IndexedComputeCallbacks<Fn>::template type, NoArguments>::CoordNode;
};

/// Reads x[row, col] (row stride ld; in a batch, product l's matrix `batch` elements further)
/// at each element, or x[row, col mod Period] for a table of Period columns (a constant, so
/// that the modulo is a mask); 0 outside the problem.
template <class Element> struct GlobalLoadArguments {
  Element const *ptr = nullptr;
  long long ld = 0;
  long long batch = 0;
};
template <class Element, int Period> struct GlobalLoadCallbacks {
  template <class Coords> struct type : EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE type(Coords coords, GlobalLoadArguments<Element> const &params)
        : coords(coords), params(params) {}
    Coords coords;
    GlobalLoadArguments<Element> const &params;

    template <class ElementAcc, int F>
    CUTLASS_DEVICE Array<float, F> visit(Array<ElementAcc, F> const &, int epi_v, int epi_m,
                                         int epi_n) {
      Array<int, F> rows, cols;
      coords.get(epi_v, epi_m, epi_n, rows, cols);
      auto in = [&](int i) { return rows[i] < coords.M && cols[i] < coords.N; };
      auto at = [&](int i) {
        int col = Period > 0 ? int(unsigned(cols[i]) % Period) : cols[i];
        return params.ptr + coords.l * params.batch + rows[i] * params.ld + col;
      };
      Array<float, F> out;
      // The accumulator layout gives fragments column pairs (2p, 2p+1) of one row, and N is
      // even wherever D goes through TMA: then each pair is one load of two elements (the
      // condition is the same for the whole fragment, so every load can be issued up front).
      bool pairs = F % 2 == 0 && coords.N % 2 == 0 && params.ld % 2 == 0 &&
                   params.batch % 2 == 0 && Period % 2 == 0 &&
                   reinterpret_cast<uintptr_t>(params.ptr) % (2 * sizeof(Element)) == 0;
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i + 1 < F; i += 2)
        pairs = pairs && cols[i] % 2 == 0 && cols[i + 1] == cols[i] + 1 && rows[i + 1] == rows[i];
      if (pairs) {
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i + 1 < F; i += 2) {
          cutlass::AlignedArray<Element, 2> two;
          two.fill(Element(0));
          if (in(i))
            two = *reinterpret_cast<cutlass::AlignedArray<Element, 2> const *>(at(i));
          out[i] = float(two[0]);
          out[i + 1] = float(two[1]);
        }
      } else {
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < F; ++i)
          out[i] = in(i) ? float(*at(i)) : 0.f;
      }
      return out;
    }
  };
};
template <class Element, int Period = 0>
struct GlobalLoad : CoordNode<GlobalLoadCallbacks<Element, Period>::template type,
                              GlobalLoadArguments<Element>> {
  using CoordNode<GlobalLoadCallbacks<Element, Period>::template type,
                  GlobalLoadArguments<Element>>::CoordNode;
};

/// A table of P columns read at x[row, col mod P] like an [M, N] matrix through TMA: the
/// epilogue's producer warp loads each subtile's rows of the table into shared memory ahead of
/// the consumers, which read them with ldmatrix (GlobalLoad reads each column pair from L1, on
/// the path the mainloop's shared-memory reads share). The CTA tile's N must be a multiple of P
/// and an epilogue subtile must lie inside one period. Stages must be the collective's StagesC
/// (its load pipeline's depth).
template <int Stages, class EpilogueTile, class Element, int P>
struct TableLoad
    : cutlass::epilogue::fusion::Sm90AuxLoad<
          Stages, EpilogueTile, Element, cute::Stride<int64_t, cute::_1, int64_t>,
          decltype(cutlass::epilogue::collective::detail::sm90_get_epilogue_smem_swizzle_layout_atom<
                   cute::Stride<int64_t, cute::_1, int64_t>, Element, EpilogueTile>()),
          decltype(cutlass::epilogue::collective::detail::sm90_get_smem_load_op_for_source<
                   cute::Stride<int64_t, cute::_1, int64_t>, Element, EpilogueTile>()),
          128 / cutlass::sizeof_bits_v<Element>, /*EnableNullptr=*/false>,
      NoWorkspace {
  using Base = typename TableLoad::Sm90AuxLoad;
  using Base::Base;
  using Params = typename Base::Params;
  // Its own Arguments (the base's take a stride), which the base's would not accept.
  using NoWorkspace::can_implement;
  using NoWorkspace::get_workspace_size;
  using NoWorkspace::initialize_workspace;
  static_assert(P * sizeof(Element) % 16 == 0, "TMA moves rows of whole 16-byte units");
  static_assert(P % cute::size<1>(EpilogueTile{}) == 0,
                "an epilogue subtile must lie inside one period of the table");

  struct Arguments {
    Element const *ptr = nullptr;
  };
  template <class ProblemShape>
  static Params to_underlying_arguments(ProblemShape const &problem, Arguments const &args, void *) {
    auto [M, N, K, L] = cute::append<4>(problem, 1);
    auto table = cute::make_tensor(cute::make_gmem_ptr(args.ptr),
                                   cute::make_layout(cute::make_shape(int(M), int(P), int(L)),
                                                     cute::make_stride(int64_t(P), cute::_1{}, int64_t(0))));
    return {cute::make_tma_copy(typename Base::CopyOpG2S{}, table,
                                cute::take<0, 2>(typename Base::SmemLayoutTma{})),
            Element(0), false};
  }

  /// The CTA tile's columns in the table: its rows of the table, the period repeated.
  template <class... Args>
  CUTLASS_DEVICE auto
  get_producer_load_callbacks(cutlass::epilogue::fusion::detail::ProducerLoadArgs<Args...> const &args) {
    using namespace cute;
    auto M = get<0>(args.problem_shape_mnkl), L = get<3>(args.problem_shape_mnkl);
    constexpr int TileM = size<0>(decltype(args.tile_shape_mnk){});
    constexpr int TileN = size<1>(decltype(args.tile_shape_mnk){});
    static_assert(TileN % P == 0, "the CTA tile must be a whole number of periods wide");
    Tensor mTable = this->params_ptr->tma_load_aux.get_tma_tensor(make_shape(M, P, L)); // (M,P,L)
    Tensor rows = local_tile(mTable, make_shape(Int<TileM>{}, Int<P>{}),
                             make_coord(get<0>(args.tile_coord_mnkl), _0{}, get<3>(args.tile_coord_mnkl)));
    Tensor tile = make_tensor(rows.data(), make_layout(make_shape(Int<TileM>{}, make_shape(Int<P>{}, Int<TileN / P>{})),
                                                       make_stride(stride<0>(rows), make_stride(stride<1>(rows), _0{}))));
    Tensor gTable_epi = flat_divide(tile, args.epi_tile);                       // (EPI_TILE_M,EPI_TILE_N,EPI_M,EPI_N)
    Tensor sTable_epi = make_tensor(make_smem_ptr(this->smem_aux), typename Base::SmemLayout{}); // (EPI_TILE_M,EPI_TILE_N,PIPE)
    ThrCopy g2s = this->params_ptr->tma_load_aux.get_slice(_0{});
    Tensor src = g2s.partition_S(gTable_epi); // (TMA,TMA_M,TMA_N,EPI_M,EPI_N)
    Tensor dst = g2s.partition_D(sTable_epi); // (TMA,TMA_M,TMA_N,PIPE)
    return typename Base::template ProducerLoadCallbacks<decltype(src), decltype(dst)>(
        cute::move(src), cute::move(dst), this->params_ptr);
  }
};

/// How a stored output's columns relate to the accumulator's.
enum class Columns {
  Same,     // out[i, j] = v[i, j]
  Contract, // out[i, j/2] = v[i, j] for even j (the pair's value)
  Expand    // out[i, 2j] = even[i, j], out[i, 2j+1] = odd[i, j]
};

/// Writes its input(s) to out[row, ...] (row stride ld; in a batch, product l's matrix `batch`
/// elements further) and passes the first one on.
template <class Element> struct GlobalStoreArguments {
  Element *ptr = nullptr;
  long long ld = 0;
  long long batch = 0;
};
template <class Element, Columns C> struct GlobalStoreCallbacks {
  template <class Coords> struct type : EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE type(Coords coords, GlobalStoreArguments<Element> const &params)
        : coords(coords), params(params) {}
    Coords coords;
    GlobalStoreArguments<Element> const &params;

    template <class ElementAcc, class... ElementInputs, int F>
    CUTLASS_DEVICE Array<float, F> visit(Array<ElementAcc, F> const &, int epi_v, int epi_m,
                                         int epi_n, Array<ElementInputs, F> const &...inputs) {
      Array<int, F> rows, cols;
      coords.get(epi_v, epi_m, epi_n, rows, cols);
      Array<float, F> v[] = {cutlass::NumericArrayConverter<float, ElementInputs, F>{}(inputs)...};
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < F; ++i) {
        if (rows[i] >= coords.M || cols[i] >= coords.N)
          continue;
        Element *row = params.ptr + coords.l * params.batch + rows[i] * params.ld;
        if constexpr (C == Columns::Same) {
          row[cols[i]] = Element(v[0][i]);
        } else if constexpr (C == Columns::Contract) {
          if (cols[i] % 2 == 0)
            row[cols[i] / 2] = Element(v[0][i]);
        } else {
          static_assert(sizeof...(ElementInputs) == 2, "expand stores an even and an odd value");
          row[2 * cols[i]] = Element(v[0][i]);
          row[2 * cols[i] + 1] = Element(v[1][i]);
        }
      }
      return v[0];
    }
  };
};
template <class Element, Columns C>
struct GlobalStore
    : CoordNode<GlobalStoreCallbacks<Element, C>::template type, GlobalStoreArguments<Element>> {
  using CoordNode<GlobalStoreCallbacks<Element, C>::template type,
                  GlobalStoreArguments<Element>>::CoordNode;
};

/// Where a pairwise(rotate, halves P) result goes. The accumulator holds each head's rotated
/// pairs side by side: column 2q + s of a head is element q of its half s. Each epilogue subtile
/// (EpiM × EpiN columns, inside one head) is staged half by half, and TMA moves it through a
/// view of the result whose columns are ((s, q), head) to where the halves go. The CTA tile's N
/// must be a multiple of P: the view tiles whole heads (a tile past the last head writes nothing
/// there: TMA drops it).
template <int Stages, class EpilogueTile, class Element, int P> struct HalvesPlace {
  static constexpr int EpiM = cute::size<0>(EpilogueTile{});
  static constexpr int EpiN = cute::size<1>(EpilogueTile{});
  static_assert(P % EpiN == 0 && EpiN % 2 == 0, "an epilogue subtile must lie inside one head");

  // Shared memory holds a subtile as 2·EpiM rows of EpiN/2 columns, row 2i + s holding half s
  // of the subtile's row i: TMA moves each half as one contiguous box row. Those rows are
  // swizzled in 16-byte units by the TMA swizzle as wide as a row (32 bytes for 16-bit results;
  // a wider one over narrower box rows wrote garbage): a warp's element-wise stores into eight
  // rows meet two to a bank instead of four, on the path the mainloop's shared-memory reads share.
  using HalfRows = decltype(cutlass::epilogue::collective::detail::sm90_get_epilogue_smem_swizzle_layout_atom<
                            cute::Stride<int64_t, cute::_1, int64_t>, Element,
                            cute::Shape<cute::Int<2 * EpiM>, cute::Int<EpiN / 2>>>());
  // (row i, column (s, q')) -> half row 2i + s, column q' (a column-major index into the rows)
  using HalfColumns = cute::Shape<cute::_2, cute::Int<EpiN / 2>>;
  using HalfStrides = cute::Stride<cute::_1, cute::Int<2 * EpiM>>;
  using SmemLayoutTma = decltype(cute::composition(
      cute::tile_to_shape(HalfRows{}, cute::Shape<cute::Int<2 * EpiM>, cute::Int<EpiN / 2>>{}),
      cute::Layout<cute::Shape<cute::Int<EpiM>, HalfColumns>, cute::Stride<cute::_2, HalfStrides>>{}));
  using SmemLayout = decltype(cute::composition(
      cute::tile_to_shape(HalfRows{}, cute::Shape<cute::Int<2 * EpiM>, cute::Int<EpiN / 2>, cute::Int<Stages>>{}),
      cute::Layout<cute::Shape<cute::Int<EpiM>, HalfColumns, cute::Int<Stages>>,
                   cute::Stride<cute::_2, HalfStrides, cute::Int<EpiM * EpiN>>>{}));
  using SmemLayoutTmaStaged = SmemLayout;

  /// The result as [M, ((2, P/2), N/P), 1]: column 2q + s + P·h of the accumulator is element
  /// P·h + s·P/2 + q of its row.
  CUTLASS_HOST_DEVICE static auto shapeOf(int m, int n) {
    return cute::make_shape(m, cute::make_shape(cute::make_shape(cute::_2{}, cute::Int<P / 2>{}), n / P), 1);
  }
  static auto viewOf(Element *ptr, int m, int n, long long ld) {
    auto stride = cute::make_stride(
        ld, cute::make_stride(cute::make_stride(cute::Int<P / 2>{}, cute::_1{}), cute::Int<P>{}), 0LL);
    return cute::make_tensor(cute::make_gmem_ptr(ptr), cute::make_layout(shapeOf(m, n), stride));
  }
  // The view's columns are the accumulator's.
  template <class Tile> CUTLASS_HOST_DEVICE static auto tileOf(Tile tile) { return tile; }
};

/// Where a pairwise(contract) result goes: the [M, N/2] result, element q of a row from the
/// accumulator's column pair (2q, 2q + 1), whose two elements carry the same value. A subtile is
/// staged as EpiM rows of EpiN/2 columns, both columns of a pair written to the element they
/// share, swizzled by the TMA swizzle as wide as a row; TMA stores it as one box.
template <int Stages, class EpilogueTile, class Element> struct ContractPlace {
  static constexpr int EpiM = cute::size<0>(EpilogueTile{});
  static constexpr int EpiN = cute::size<1>(EpilogueTile{});
  static_assert(EpiN % 2 == 0, "an epilogue subtile must hold whole column pairs");
  using Rows = decltype(cutlass::epilogue::collective::detail::sm90_get_epilogue_smem_swizzle_layout_atom<
                        cute::Stride<int64_t, cute::_1, int64_t>, Element,
                        cute::Shape<cute::Int<EpiM>, cute::Int<EpiN / 2>>>());
  using SmemLayoutTma = decltype(cute::tile_to_shape(Rows{}, cute::Shape<cute::Int<EpiM>, cute::Int<EpiN / 2>>{}));
  using SmemLayoutTmaStaged = decltype(cute::tile_to_shape(
      Rows{}, cute::Shape<cute::Int<EpiM>, cute::Int<EpiN / 2>, cute::Int<Stages>>{}));
  // (row i, column (s, q), stage) -> (i, q, stage) (a column-major index into the staged rows)
  using SmemLayout = decltype(cute::composition(
      SmemLayoutTmaStaged{},
      cute::Layout<cute::Shape<cute::Int<EpiM>, cute::Shape<cute::_2, cute::Int<EpiN / 2>>, cute::Int<Stages>>,
                   cute::Stride<cute::_1, cute::Stride<cute::_0, cute::Int<EpiM>>, cute::Int<EpiM * EpiN / 2>>>{}));

  CUTLASS_HOST_DEVICE static auto shapeOf(int m, int n) { return cute::make_shape(m, n / 2, 1); }
  static auto viewOf(Element *ptr, int m, int n, long long ld) {
    return cute::make_tensor(cute::make_gmem_ptr(ptr),
                             cute::make_layout(shapeOf(m, n), cute::make_stride(ld, cute::_1{}, 0LL)));
  }
  // The view has half the accumulator's columns.
  template <class Tile> CUTLASS_HOST_DEVICE static auto tileOf(Tile tile) {
    return cute::make_shape(cute::get<0>(tile), cute::Int<cute::size<1>(Tile{}) / 2>{});
  }
};

/// Writes a result by TMA stores from shared-memory subtiles staged in a placement of its own
/// (HalvesPlace, ContractPlace), as CUTLASS's Sm90AuxStore does for a result shaped like the
/// accumulator. Stages must be the collective's StagesD.
template <int Stages, class EpilogueTile, class Element, class Place>
struct StagedStore : NodeBase, Place {
  using ElementAux = Element;
  using typename Place::SmemLayout;
  using typename Place::SmemLayoutTma;
  using typename Place::SmemLayoutTmaStaged;

  struct SharedStorage {
    alignas(cutlass::detail::alignment_for_swizzle(SmemLayoutTmaStaged{}))
        cute::array_aligned<Element, cute::cosize_v<SmemLayoutTmaStaged>> smem;
  };
  struct Arguments {
    Element *ptr = nullptr;
    long long ld = 0;
  };

  struct Params {
    using Tma = decltype(cute::make_tma_copy(cute::SM90_TMA_STORE{}, Place::viewOf(nullptr, 0, 0, 0),
                                             SmemLayoutTma{}));
    Tma tma;
  };
  template <class ProblemShape>
  static Params to_underlying_arguments(ProblemShape const &problem, Arguments const &args, void *) {
    auto [M, N, K, L] = cute::append<4>(problem, 1);
    return {cute::make_tma_copy(cute::SM90_TMA_STORE{}, Place::viewOf(args.ptr, int(M), int(N), args.ld),
                                SmemLayoutTma{})};
  }

  CUTLASS_HOST_DEVICE StagedStore() {}
  CUTLASS_HOST_DEVICE StagedStore(Params const &params, SharedStorage const &shared)
      : params(&params), smem(const_cast<Element *>(shared.smem.data())) {}
  Params const *params;
  Element *smem;

  template <class RTensor, class TiledR2S, class STensorR2S, class STensorS2G, class GTensorS2G>
  struct Callbacks : EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE Callbacks(RTensor &&values, TiledR2S r2s, STensorR2S &&r2sDst,
                             STensorS2G &&s2gSrc, GTensorS2G &&s2gDst, Params const *params)
        : values(cute::forward<RTensor>(values)), r2s(r2s),
          r2sDst(cute::forward<STensorR2S>(r2sDst)), s2gSrc(cute::forward<STensorS2G>(s2gSrc)),
          s2gDst(cute::forward<GTensorS2G>(s2gDst)), params(params) {}
    RTensor values;      // (CPY, CPY_M, CPY_N): this thread's values of the subtile
    TiledR2S r2s;        // element by element, each to its place
    STensorR2S r2sDst;   // (R2S, R2S_M, R2S_N, PIPE)
    STensorS2G s2gSrc;   // (TMA, TMA_M, TMA_N, PIPE)
    GTensorS2G s2gDst;   // (TMA, TMA_M, TMA_N, EPI_M, EPI_N)
    Params const *params;

    template <class ElementAcc, class ElementInput, int F>
    CUTLASS_DEVICE Array<ElementInput, F> visit(Array<ElementAcc, F> const &, int epi_v, int,
                                                int, Array<ElementInput, F> const &input) {
      auto fragments = cute::recast<Array<Element, F>>(cute::coalesce(values));
      fragments(epi_v) = cutlass::NumericArrayConverter<Element, ElementInput, F>{}(input);
      return input;
    }

    // Element by element, as the copy pairs them (a UniversalCopy atom). Where the placement
    // puts two elements in one place (stride 0: a contracted pair, whose two elements carry the
    // same value) the second write is skipped; the offsets are known at compile time.
    CUTLASS_DEVICE void postreduce(int, int, int iteration, bool issue_smem_store) {
      using Retiled = decltype(cute::layout(TiledR2S{}.get_slice(0).retile_S(RTensor{})));
      if (!issue_smem_store)
        return;
      auto src = cute::make_tensor(values.data(), Retiled{});
      auto dst = r2sDst(cute::_, cute::_, cute::_, iteration % Stages);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < cute::size(dst); ++i)
        if (i == 0 || dst.layout()(i) != dst.layout()(i - 1))
          dst(i) = src(i);
    }

    CUTLASS_DEVICE void tma_store(int epi_m, int epi_n, int iteration, bool issue_tma_store) {
      if (issue_tma_store)
        cute::copy(params->tma, s2gSrc(cute::_, cute::_, cute::_, iteration % Stages),
                   s2gDst(cute::_, cute::_, cute::_, epi_m, epi_n));
    }
  };

  template <bool ReferenceSrc, class... A>
  CUTLASS_DEVICE auto
  get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<A...> const &args) {
    using namespace cute;
    auto [M, N, K, L] = args.problem_shape_mnkl;
    auto [m, n, k, l] = args.tile_coord_mnkl;
    // The thread's values of a subtile, in the accumulator's coordinates.
    Tensor gValues = cutlass::epilogue::fusion::sm90_partition_for_epilogue<ReferenceSrc>(
        make_identity_tensor(take<0, 2>(args.tile_shape_mnk)), args.epi_tile, args.tiled_copy,
        args.thread_idx);
    Tensor values = make_tensor<Element>(take<0, 3>(shape(gValues)));
    Tensor sValues = make_tensor(make_smem_ptr(smem), SmemLayout{});
    auto r2s = conditional_return<ReferenceSrc>(
        make_tiled_copy_S(Copy_Atom<UniversalCopy<Element>, Element>{}, args.tiled_copy),
        make_tiled_copy_D(Copy_Atom<UniversalCopy<Element>, Element>{}, args.tiled_copy));
    auto r2sDst = r2s.get_slice(args.thread_idx).partition_D(sValues);
    // The CTA tile and its subtiles in the result's view, as TMA writes them.
    Tensor mOut = params->tma.get_tma_tensor(Place::shapeOf(int(M), int(N)));
    Tensor gOut = local_tile(mOut, Place::tileOf(take<0, 2>(args.tile_shape_mnk)), make_coord(m, n, l));
    auto s2g = params->tma.get_slice(_0{});
    Tensor s2gSrc = s2g.partition_S(make_tensor(make_smem_ptr(smem), SmemLayoutTmaStaged{}));
    Tensor s2gDst = s2g.partition_D(flat_divide(gOut, Place::tileOf(args.epi_tile)));
    return Callbacks<decltype(values), decltype(r2s), decltype(r2sDst), decltype(s2gSrc),
                     decltype(s2gDst)>(std::move(values), r2s, std::move(r2sDst),
                                       std::move(s2gSrc), std::move(s2gDst), params);
  }
};

/// A pairwise(rotate, halves P) result written into its heads' halves (HalvesPlace).
template <int Stages, class EpilogueTile, class Element, int P>
using HalvesStore = StagedStore<Stages, EpilogueTile, Element, HalvesPlace<Stages, EpilogueTile, Element, P>>;
/// A pairwise(contract) result, [M, N/2] (ContractPlace).
template <int Stages, class EpilogueTile, class Element>
using ContractStore = StagedStore<Stages, EpilogueTile, Element, ContractPlace<Stages, EpilogueTile, Element>>;

/// The first input: the root of a DAG whose other children write their own outputs.
template <class T> struct TakeFirst {
  template <class... Rest>
  CUTLASS_HOST_DEVICE T operator()(T const &first, Rest const &...) const { return first; }
};

/// A DAG whose results all leave through its own nodes (ElementD = void): CUTLASS's collective
/// still names an element type for the D it does not store, which it reads as ElementAux.
template <class Element, class Dag> struct WithoutD : Dag {
  using Dag::Dag;
  using ElementAux = Element;
};

/// Pairwise functors see a fragment's elements in pairs: elements 2q and 2q+1 must be the
/// columns 2p and 2p+1 of one row. The wgmma accumulator layout gives every thread such pairs;
/// this check folds away when it holds and stops the kernel if a layout ever breaks it.
template <int F>
CUTLASS_DEVICE void checkPairs(Array<int, F> const &rows, Array<int, F> const &cols) {
  static_assert(F % 2 == 0, "pairwise epilogues need fragments of whole column pairs");
  CUTLASS_PRAGMA_UNROLL
  for (int q = 0; q < F; q += 2)
    if (cols[q] % 2 != 0 || cols[q + 1] != cols[q] + 1 || rows[q + 1] != rows[q])
      __trap();
}

} // namespace coda::rt

#endif // CODA_RUNTIME_EPILOGUE_CUH
