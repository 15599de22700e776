#!/usr/bin/env Rscript
# Generate reference fixtures from the R smallvis code.
#
# Usage:
#   Rscript generate.R <dir-with-smallvis-R-files> [output-dir]
# or set SMALLVIS_R_DIR (and optionally RSMALLVIS_OUT).
# Every *.R file in the source dir is source()d in alphabetical order.
# Requires: jsonlite, Matrix (both Debian packages r-cran-jsonlite, r-cran-matrix).

args <- commandArgs(trailingOnly = TRUE)
src_dir <- if (length(args) >= 1) args[1] else Sys.getenv("SMALLVIS_R_DIR", "/tmp/rsmallvis/R")
out_dir <- if (length(args) >= 2) args[2] else Sys.getenv("RSMALLVIS_OUT", ".")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

for (f in sort(list.files(src_dir, pattern = "\\.R$", full.names = TRUE))) {
  if (basename(f) == "RcppExports.R") next
  source(f)
}

X <- as.matrix(datasets::iris[, 1:4])
dimnames(X) <- NULL
set.seed(1337)
Y0 <- matrix(rnorm(300, sd = 1e-2), ncol = 2)

common <- list(
  X = X,
  k = 2,
  scale = FALSE,
  pca = FALSE,
  Y_init = Y0,
  max_iter = 200,
  epoch = 10,
  tol = 0,
  min_cost = -Inf,
  exaggeration_factor = 1,
  momentum = 0.5,
  final_momentum = 0.8,
  mom_switch_iter = 250,
  min_gain = 0.01,
  opt = list("dbd"),
  epoch_callback = FALSE,
  use_cpp = FALSE,
  n_threads = 0,
  ret_extra = c("P", "X"),
  verbose = FALSE
)

runs <- list(
  asne     = list(method = "asne",     perplexity = 20, eta = 10),
  ssne     = list(method = "ssne",     perplexity = 20, eta = 10),
  tsne     = list(method = "tsne",     perplexity = 20, eta = 100),
  largevis = list(method = "largevis", perplexity = 20, eta = 1),
  umap     = list(method = "umap",     perplexity = 15, eta = 1),
  tumap    = list(method = "tumap",    perplexity = 15, eta = 1)
)

# method-specific constructor defaults that matter (as read from the source)
method_defaults <- list(
  asne = list(inp_kernel = "gaussian", symmetrize = "none", row_normalize = TRUE,
              normalize = FALSE, eps = .Machine$double.eps, perplexity_tol = 1e-5),
  ssne = list(inp_kernel = "gaussian", symmetrize = "symmetric", row_normalize = TRUE,
              normalize = TRUE, eps = .Machine$double.eps, perplexity_tol = 1e-5),
  tsne = list(inp_kernel = "gaussian", symmetrize = "symmetric", row_normalize = TRUE,
              normalize = TRUE, eps = .Machine$double.eps, perplexity_tol = 1e-5),
  largevis = list(inp_kernel = "gaussian", symmetrize = "symmetric", row_normalize = TRUE,
                  normalize = TRUE, gamma = 1, gr_eps = 0.1,
                  eps = .Machine$double.eps, perplexity_tol = 1e-5),
  umap = list(inp_kernel = "skd", symmetrize = "umap", row_normalize = FALSE,
              normalize = FALSE, spread = 1, min_dist = 0.001, gr_eps = 0.1,
              eps = .Machine$double.eps, n_neighbors = 15, skd_tol = 1e-5,
              skd_n_iter = 64, local_connectivity = 1, bandwidth = 1,
              min_k_dist_scale = 1e-3),
  tumap = list(inp_kernel = "skd", symmetrize = "umap", row_normalize = FALSE,
               normalize = FALSE, gr_eps = 0.1, eps = .Machine$double.eps,
               n_neighbors = 15, skd_tol = 1e-5, skd_n_iter = 64,
               local_connectivity = 1, bandwidth = 1, min_k_dist_scale = 1e-3)
)

# One fixture: the run's inputs, R's P, costs and final Y (see README.md).
write_fixture <- function(name, res, X_used, passed, eta, file) {
  passed$Y_init <- "Y0: set.seed(1337); matrix(rnorm(300, sd = 1e-2), ncol = 2) (see Y_init field)"
  out <- list(
    method = name,
    r_args = passed,
    method_defaults = method_defaults[[name]],
    X = X_used,
    Y_init = Y0,
    P = unname(as.matrix(res$P)),
    itercosts = list(iter = as.integer(names(res$itercosts)),
                     cost = unname(res$itercosts)),
    Y = res$Y,
    iter = res$iter,
    G2norm = res$G2norm,
    eta_used = eta
  )
  if (name == "umap") {
    ab <- find_ab_params(spread = 1, min_dist = 0.001)
    out$a <- unname(ab[1])
    out$b <- unname(ab[2])
  }
  jsonlite::write_json(out, file, digits = NA, auto_unbox = TRUE, matrix = "rowmajor",
                       pretty = FALSE)
}

for (name in names(runs)) {
  run <- runs[[name]]
  eta <- run$eta
  repeat {
    call_args <- c(common, run[c("method", "perplexity")], list(eta = eta))
    res <- tryCatch(do.call(smallvis, call_args), error = function(e) {
      message(name, ": error: ", conditionMessage(e))
      NULL
    })
    if (!is.null(res) && all(is.finite(res$Y)) && all(is.finite(res$itercosts))) break
    message(name, ": diverged with eta = ", eta, ", retrying with eta / 2")
    eta <- eta / 2
    if (eta < 1e-6) stop("could not find a stable eta for ", name)
  }

  passed <- call_args
  passed$X <- "as.matrix(datasets::iris[, 1:4]) (see X field)"
  write_fixture(name, res, X, passed, eta, file.path(out_dir, paste0(name, ".json")))
  message(sprintf("%-8s eta=%g final cost=%.10g iter=%d", name, eta,
                  tail(res$itercosts, 1), res$iter))
}

# --- tie-free UMAP and t-UMAP runs ------------------------------------------
# Iris has duplicate rows and many equal distances, and the kNN stub above
# breaks ties through the rounding of |x|^2 + |y|^2 - 2 x.y, so its UMAP graph
# can differ from any other implementation's at tied rows.  These runs use
# iris plus a small jitter (no ties), so that the whole pipeline (kNN, graph,
# optimisation) can be compared.
set.seed(42)
Xj <- X + matrix(rnorm(length(X), sd = 0.01), ncol = ncol(X))
for (name in c("umap", "tumap")) {
  run <- runs[[name]]
  call_args <- c(common, run[c("method", "perplexity")], list(eta = run$eta))
  call_args$X <- Xj
  res <- do.call(smallvis, call_args)
  passed <- call_args
  passed$X <- "Xj: iris[, 1:4] + set.seed(42); rnorm(600, sd = 0.01) (see X field)"
  write_fixture(name, res, Xj, passed, run$eta,
                file.path(out_dir, paste0(name, "_jitter.json")))
  message(sprintf("%-8s (jittered) final cost=%.10g iter=%d", name,
                  tail(res$itercosts, 1), res$iter))
}
