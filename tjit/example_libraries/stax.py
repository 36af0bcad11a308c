"""``jax.example_libraries.stax`` on tjit: neural-network layers as ``(init_fun,
apply_fun)`` pairs and combinators that compose them.

* ``init_fun(rng, input_shape) -> (output_shape, params)``: draws the layer's parameters
  with a PRNG key (``tjit.random``) for inputs of ``input_shape``.
* ``apply_fun(params, inputs, **kwargs) -> outputs``; ``rng=key`` reaches the layers
  that need randomness (``Dropout``), split per layer by ``serial``/``parallel`` as in
  JAX, so the same key gives the same parameters and dropout masks as JAX's code does
  with tjit's PRNG.

Convolutions run ``lax.conv_general_dilated`` / ``conv_transpose``; pools
``lax.reduce_window``. Layer names, defaults (channels-last layouts, glorot-normal
kernels, biases of ``normal(1e-6)``) and quirks (``Dropout(rate)`` keeps each element
with probability ``rate``) are JAX's.
"""

import functools
import math

import tjit.numpy as jnp
from tjit import lax, random
from tjit.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from tjit.nn.initializers import glorot_normal, normal, ones, zeros

# aliases JAX keeps for backwards compatibility
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


# JAX's signatures build initializers in argument defaults: they are pure functions, so
# sharing one between calls is safe (hence the B008 exemptions).
def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):  # noqa: B008
    """A fully-connected layer: ``inputs @ W + b``."""
    def init_fun(rng, input_shape):
        output_shape = tuple(input_shape[:-1]) + (out_dim,)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape):
    it = iter(filter_shape)
    return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
            else next(it) for c in rhs_spec]


def _conv_layer(dimension_numbers, out_chan, filter_shape, strides, W_init, b_init,
                output_shape_of, convolve):
    """init/apply of a convolution-like layer: kernel and per-output-channel bias shapes
    from the string layouts; ``output_shape_of(input_shape, kernel_shape, strides)`` and
    ``convolve(inputs, W, strides)`` say which convolution."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape)
        output_shape = output_shape_of(input_shape, kernel_shape, strides)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return convolve(inputs, W, strides) + b
    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):  # noqa: B008
    """A convolution layer with layouts given as strings, e.g. ``('NCHW', 'OIHW',
    'NCHW')``; the bias has one value per output channel."""
    one = (1,) * len(filter_shape)
    return _conv_layer(
        dimension_numbers, out_chan, filter_shape, strides, W_init, b_init,
        lambda shape, kshape, st: lax.conv_general_shape_tuple(
            shape, kshape, st, padding, dimension_numbers),
        lambda x, W, st: lax.conv_general_dilated(
            x, W, st, padding, one, one, dimension_numbers=dimension_numbers))


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):  # noqa: B008
    """A transposed-convolution layer (``lax.conv_transpose``) with string layouts."""
    return _conv_layer(
        dimension_numbers, out_chan, filter_shape, strides, W_init, b_init,
        lambda shape, kshape, st: lax.conv_transpose_shape_tuple(
            shape, kshape, st, padding, dimension_numbers),
        lambda x, W, st: lax.conv_transpose(
            x, W, st, padding, dimension_numbers=dimension_numbers))


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Batch normalization over ``axis`` with the statistics of the batch itself (no
    running averages, as JAX's stax)."""
    axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying ``fun(inputs, **fun_kwargs)``."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over the spatial dims (``spec``, e.g. 'NHWC', places the batch
        and channel dims; default: first and last)."""
        window_shape = tuple(window_shape)
        strides = tuple(strides or (1,) * len(window_shape))
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        if spec is None:
            non_spatial_axes = 0, len(window_shape) + 1
        else:
            non_spatial_axes = spec.index("N"), spec.index("C")
        for i in sorted(non_spatial_axes):
            window_shape = window_shape[:i] + (1,) + window_shape[i:]
            strides = strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = (lax.padtype_to_pads(input_shape, window_shape, strides, padding)
                    if isinstance(padding, str) else padding)
            out_shape = lax.reduce_window_shape_tuple(input_shape, window_shape, strides,
                                                      pads)
            return out_shape, ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window_shape, strides,
                                    padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.0)


def _normalize_by_window_size(dims, strides, padding):
    def rescale(outputs, inputs, spec):
        # divide by the number of real (not padded) elements of each window
        if spec is None:
            non_spatial_axes = 0, inputs.ndim - 1
        else:
            non_spatial_axes = spec.index("N"), spec.index("C")
        spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim)
                              if i not in non_spatial_axes)
        one = jnp.ones(spatial_shape, dtype=inputs.dtype)
        window_sizes = lax.reduce_window(one, 0.0, lax.add, dims, strides, padding)
        for i in sorted(non_spatial_axes):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes
    return rescale


AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)


def _flatten():
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = _flatten()
"""Flattens all but the leading (batch) dim."""


def _identity():
    return (lambda rng, input_shape: (input_shape, ()),
            lambda params, inputs, **kwargs: inputs)


Identity = _identity()


def FanOut(num):
    """``num`` copies of the input (a list), for ``parallel``."""
    return (lambda rng, input_shape: ([input_shape] * num, ()),
            lambda params, inputs, **kwargs: [inputs] * num)


def _fan_in_sum():
    return (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: sum(inputs))


FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):
    """Concatenates a list of inputs along ``axis``."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        out_shape = tuple(input_shape[0][:ax]) + (concat_size,) + tuple(input_shape[0][ax + 1:])
        return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Dropout as JAX's stax: in 'train' mode each element is *kept* with probability
    ``rate`` and scaled by ``1 / rate``; apply_fun needs ``rng=key``."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                             "argument. That is, instead of `apply_fun(params, inputs)`, call "
                             "it like `apply_fun(params, inputs, rng=key)` where `key` is a "
                             "PRNG key (e.g. from `tjit.random.PRNGKey`).")
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs
    return init_fun, apply_fun


def serial(*layers):
    """Compose layers in sequence. init_fun splits the key once per layer; apply_fun
    splits ``rng`` (if given) into one key per layer."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, r in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Apply layers side by side to a sequence of inputs (one each), e.g. between
    ``FanOut`` and ``FanInSum``."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        return tuple(zip(*[init(r, shape) for init, r, shape
                           in zip(init_funs, rngs, input_shape)]))

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs,
                                                                 rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the input shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists the public API only
