"""Examples for docstrings that have none, made by ``python -m tjit._docs`` (each a call
on a small sample whose result equals NumPy's; tests/test_docstrings.py re-checks them)."""

EXAMPLES = {'jnp.acos': '>>> jnp.acos(jnp.asarray([0.25, 0.5, 0.75]))\n'
             'Array([1.3181162, 1.0471976, 0.7227342], dtype=float32)',
 'jnp.acosh': '>>> jnp.acosh(jnp.asarray([1.5, 2.0, 3.0]))\n'
              'Array([0.9624236, 1.316958 , 1.7627472], dtype=float32)',
 'jnp.add': '>>> jnp.add(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([-3.,  0.,  5.], dtype=float32)',
 'jnp.all': '>>> jnp.all(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(False, dtype=bool)',
 'jnp.allclose': '>>> jnp.allclose(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array(True, dtype=bool)',
 'jnp.amax': '>>> jnp.amax(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2.5, dtype=float32)',
 'jnp.amin': '>>> jnp.amin(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(-1.5, dtype=float32)',
 'jnp.any': '>>> jnp.any(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(True, dtype=bool)',
 'jnp.append': '>>> jnp.append(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-1.5,  0. ,  2.5, -1.5,  0. ,  2.5], dtype=float32)',
 'jnp.apply_along_axis': '>>> jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3))\n'
                         'Array([ 3, 12], dtype=int32)',
 'jnp.apply_over_axes': '>>> jnp.apply_over_axes(jnp.sum, jnp.arange(6).reshape(2, 3), [0])\n'
                        'Array([[3, 5, 7]], dtype=int32)',
 'jnp.arange': '>>> jnp.arange(1, 7, 2)\nArray([1, 3, 5], dtype=int32)',
 'jnp.arcsin': '>>> jnp.arcsin(jnp.asarray([0.25, 0.5, 0.75]))\n'
               'Array([0.25268024, 0.5235988 , 0.84806216], dtype=float32)',
 'jnp.arcsinh': '>>> jnp.arcsinh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.1947632,  0.       ,  1.6472311], dtype=float32)',
 'jnp.arctan': '>>> jnp.arctan(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-0.98279375,  0.        ,  1.19029   ], dtype=float32)',
 'jnp.arctan2': '>>> jnp.arctan2(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-2.3561945,  0.       ,  0.7853981], dtype=float32)',
 'jnp.arctanh': '>>> jnp.arctanh(jnp.asarray([0.25, 0.5, 0.75]))\n'
                'Array([0.25541282, 0.54930615, 0.97295505], dtype=float32)',
 'jnp.argmax': '>>> jnp.argmax(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2, dtype=int32)',
 'jnp.argmin': '>>> jnp.argmin(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0, dtype=int32)',
 'jnp.argpartition': '>>> jnp.argpartition(jnp.asarray([3, 1, 2]), 1)\n'
                     'Array([1, 2, 0], dtype=int32)',
 'jnp.argsort': '>>> jnp.argsort(jnp.asarray([-1.5, 0.0, 2.5]))\nArray([0, 1, 2], dtype=int32)',
 'jnp.argwhere': '>>> jnp.argwhere(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([[0],\n'
                 '       [2]], dtype=int32)',
 'jnp.around': '>>> jnp.around(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-2.,  0.,  2.], dtype=float32)',
 'jnp.array': '>>> jnp.array(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.array_equal': '>>> jnp.array_equal(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                    '2.5]))\n'
                    'Array(True, dtype=bool)',
 'jnp.array_equiv': '>>> jnp.array_equiv(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                    '2.5]))\n'
                    'Array(True, dtype=bool)',
 'jnp.array_split': '>>> jnp.array_split(jnp.arange(6), 3)\n'
                    '[Array([0, 1], dtype=int32), Array([2, 3], dtype=int32), Array([4, 5], '
                    'dtype=int32)]',
 'jnp.asarray': '>>> jnp.asarray(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.astype': '>>> jnp.astype(jnp.asarray([1.7, -2.2]), jnp.int32)\nArray([ 1, -2], dtype=int32)',
 'jnp.atleast_1d': '>>> jnp.atleast_1d(3.0)\nArray([3.], dtype=float32, weak_type=True)',
 'jnp.atleast_2d': '>>> jnp.atleast_2d(jnp.asarray([1, 2]))\nArray([[1, 2]], dtype=int32)',
 'jnp.atleast_3d': '>>> jnp.atleast_3d(jnp.asarray([1, 2]))\n'
                   'Array([[[1],\n'
                   '        [2]]], dtype=int32)',
 'jnp.average': '>>> jnp.average(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0.33333334, dtype=float32)',
 'jnp.bartlett': '>>> jnp.bartlett(5)\nArray([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)',
 'jnp.bincount': '>>> jnp.bincount(jnp.asarray([1, 2, 6]))\n'
                 'Array([0, 1, 1, 0, 0, 0, 1], dtype=int32)',
 'jnp.bitwise_and': '>>> jnp.bitwise_and(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
                    'Array([1, 2, 6], dtype=int32)',
 'jnp.bitwise_count': '>>> jnp.bitwise_count(jnp.asarray([1, 2, 6]))\n'
                      'Array([1, 1, 2], dtype=uint8)',
 'jnp.bitwise_left_shift': '>>> jnp.bitwise_left_shift(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, '
                           '6]))\n'
                           'Array([  2,   8, 384], dtype=int32)',
 'jnp.bitwise_or': '>>> jnp.bitwise_or(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
                   'Array([1, 2, 6], dtype=int32)',
 'jnp.bitwise_right_shift': '>>> jnp.bitwise_right_shift(jnp.asarray([1, 2, 6]), jnp.asarray([1, '
                            '2, 6]))\n'
                            'Array([0, 0, 0], dtype=int32)',
 'jnp.bitwise_xor': '>>> jnp.bitwise_xor(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
                    'Array([0, 0, 0], dtype=int32)',
 'jnp.blackman': '>>> jnp.blackman(5)\n'
                 'Array([-1.4901161e-08,  3.3999997e-01,  9.9999994e-01,  3.3999997e-01,\n'
                 '       -1.4901161e-08], dtype=float32)',
 'jnp.block': '>>> jnp.block(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.broadcast_arrays': '>>> jnp.broadcast_arrays(jnp.asarray([1, 2]), jnp.asarray([[3], [4]]))\n'
                         '[Array([[1, 2],\n'
                         '       [1, 2]], dtype=int32), Array([[3, 3],\n'
                         '       [4, 4]], dtype=int32)]',
 'jnp.broadcast_shapes': '>>> jnp.broadcast_shapes((2, 1), (3,))\n(2, 3)',
 'jnp.broadcast_to': '>>> jnp.broadcast_to(jnp.asarray([1, 2]), (2, 2))\n'
                     'Array([[1, 2],\n'
                     '       [1, 2]], dtype=int32)',
 'jnp.cbrt': '>>> jnp.cbrt(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-1.1447142,  0.       ,  1.3572087], dtype=float32)',
 'jnp.choose': '>>> jnp.choose(jnp.asarray([0, 1, 0]), [jnp.asarray([1, 2, 3]), jnp.asarray([4, 5, '
               '6])])\n'
               'Array([1, 5, 3], dtype=int32)',
 'jnp.clip': '>>> jnp.clip(jnp.asarray([-2, 0, 5]), 0, 3)\nArray([0, 0, 3], dtype=int32)',
 'jnp.column_stack': '>>> jnp.column_stack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([[-1.5,  0. ,  2.5]], dtype=float32)',
 'jnp.compress': '>>> jnp.compress(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-1.5,  2.5], dtype=float32)',
 'jnp.concat': '>>> jnp.concat(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
               'Array([2., 1., 1., 3.], dtype=float32)',
 'jnp.concatenate': '>>> jnp.concatenate(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    'Array([2., 1., 1., 3.], dtype=float32)',
 'jnp.convolve': '>>> jnp.convolve(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([ 2.25,  0.  , -7.5 ,  0.  ,  6.25], dtype=float32)',
 'jnp.copy': '>>> jnp.copy(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.corrcoef': '>>> jnp.corrcoef(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(1., dtype=float32)',
 'jnp.correlate': '>>> jnp.correlate(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([8.5], dtype=float32)',
 'jnp.cos': '>>> jnp.cos(jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([ 0.0707372,  1.       , -0.8011436], dtype=float32)',
 'jnp.cosh': '>>> jnp.cosh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([2.3524096, 1.       , 6.13229  ], dtype=float32)',
 'jnp.count_nonzero': '>>> jnp.count_nonzero(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2, dtype=int32)',
 'jnp.cov': '>>> jnp.cov(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(4.0833335, dtype=float32)',
 'jnp.cross': '>>> jnp.cross(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([0., 0., 0.], dtype=float32)',
 'jnp.cumprod': '>>> jnp.cumprod(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5, -0. , -0. ], dtype=float32)',
 'jnp.cumsum': '>>> jnp.cumsum(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-1.5, -1.5,  1. ], dtype=float32)',
 'jnp.cumulative_prod': '>>> jnp.cumulative_prod(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([-1.5, -0. , -0. ], dtype=float32)',
 'jnp.cumulative_sum': '>>> jnp.cumulative_sum(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([-1.5, -1.5,  1. ], dtype=float32)',
 'jnp.delete': '>>> jnp.delete(jnp.arange(5), 1)\nArray([0, 2, 3, 4], dtype=int32)',
 'jnp.diag': '>>> jnp.diag(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([[-1.5,  0. ,  0. ],\n'
             '       [ 0. ,  0. ,  0. ],\n'
             '       [ 0. ,  0. ,  2.5]], dtype=float32)',
 'jnp.diag_indices': '>>> jnp.diag_indices(2)\n'
                     '(Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))',
 'jnp.diag_indices_from': '>>> jnp.diag_indices_from(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                          '(Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))',
 'jnp.diagflat': '>>> jnp.diagflat(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([[-1.5,  0. ,  0. ],\n'
                 '       [ 0. ,  0. ,  0. ],\n'
                 '       [ 0. ,  0. ,  2.5]], dtype=float32)',
 'jnp.diagonal': '>>> jnp.diagonal(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                 'Array([2., 3.], dtype=float32)',
 'jnp.diff': '>>> jnp.diff(jnp.asarray([-1.5, 0.0, 2.5]))\nArray([1.5, 2.5], dtype=float32)',
 'jnp.digitize': '>>> jnp.digitize(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([1, 2, 3], dtype=int32)',
 'jnp.divide': '>>> jnp.divide(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, 0.75]))\n'
               'Array([1., 1., 1.], dtype=float32)',
 'jnp.divmod': '>>> jnp.divmod(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, 0.75]))\n'
               '(Array([1., 1., 1.], dtype=float32), Array([0., 0., 0.], dtype=float32))',
 'jnp.dot': '>>> jnp.dot(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array(8.5, dtype=float32)',
 'jnp.dsplit': '>>> jnp.dsplit(jnp.arange(8).reshape(1, 2, 4), 2)\n'
               '[Array([[[0, 1],\n'
               '        [4, 5]]], dtype=int32), Array([[[2, 3],\n'
               '        [6, 7]]], dtype=int32)]',
 'jnp.dstack': '>>> jnp.dstack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([[[-1.5,  0. ,  2.5]]], dtype=float32)',
 'jnp.ediff1d': '>>> jnp.ediff1d(jnp.asarray([-1.5, 0.0, 2.5]))\nArray([1.5, 2.5], dtype=float32)',
 'jnp.einsum': ">>> jnp.einsum('ij,j->i', jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 1]))\n"
               'Array([3, 7], dtype=int32)',
 'jnp.empty': '>>> jnp.empty((0, 2))\nArray([], shape=(0, 2), dtype=float32)',
 'jnp.empty_like': '>>> jnp.empty_like(jnp.ones((2, 0)))\nArray([], shape=(2, 0), dtype=float32)',
 'jnp.equal': '>>> jnp.equal(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([ True,  True,  True], dtype=bool)',
 'jnp.exp': '>>> jnp.exp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([ 0.22313015,  1.        , 12.182493  ], dtype=float32)',
 'jnp.exp2': '>>> jnp.exp2(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([0.35355338, 1.        , 5.656854  ], dtype=float32)',
 'jnp.expand_dims': '>>> jnp.expand_dims(jnp.asarray([1, 2]), 0)\nArray([[1, 2]], dtype=int32)',
 'jnp.expm1': '>>> jnp.expm1(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([-0.77686983,  0.        , 11.182494  ], dtype=float32)',
 'jnp.extract': '>>> jnp.extract(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  2.5], dtype=float32)',
 'jnp.eye': '>>> jnp.eye(2, 3, k=1)\nArray([[0., 1., 0.],\n       [0., 0., 1.]], dtype=float32)',
 'jnp.fft.fft': '>>> jnp.fft.fft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ 1.  +0.j       , -2.75+2.1650636j, -2.75-2.1650636j], dtype=complex64)',
 'jnp.fft.fft2': '>>> jnp.fft.fft2(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                 'Array([[ 7.+0.j, -1.+0.j],\n'
                 '       [-1.+0.j,  3.+0.j]], dtype=complex64)',
 'jnp.fft.fftfreq': '>>> jnp.fft.fftfreq(4)\nArray([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)',
 'jnp.fft.fftn': '>>> jnp.fft.fftn(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([ 1.  +0.j       , -2.75+2.1650636j, -2.75-2.1650636j], dtype=complex64)',
 'jnp.fft.fftshift': '>>> jnp.fft.fftshift(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([ 2.5, -1.5,  0. ], dtype=float32)',
 'jnp.fft.hfft': '>>> jnp.fft.hfft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([ 1., -4.,  1., -4.], dtype=float32)',
 'jnp.fft.ifft': '>>> jnp.fft.ifft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([ 0.33333334+0.j       , -0.9166667 -0.7216878j,\n'
                 '       -0.9166667 +0.7216878j], dtype=complex64)',
 'jnp.fft.ifft2': '>>> jnp.fft.ifft2(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                  'Array([[ 1.75+0.j, -0.25+0.j],\n'
                  '       [-0.25+0.j,  0.75+0.j]], dtype=complex64)',
 'jnp.fft.ifftn': '>>> jnp.fft.ifftn(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([ 0.33333334+0.j       , -0.9166667 -0.7216878j,\n'
                  '       -0.9166667 +0.7216878j], dtype=complex64)',
 'jnp.fft.ifftshift': '>>> jnp.fft.ifftshift(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([ 0. ,  2.5, -1.5], dtype=float32)',
 'jnp.fft.ihfft': '>>> jnp.fft.ihfft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([ 0.33333334-0.j       , -0.9166667 -0.7216879j], dtype=complex64)',
 'jnp.fft.irfft': '>>> jnp.fft.irfft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([ 0.25, -1.  ,  0.25, -1.  ], dtype=float32)',
 'jnp.fft.irfft2': '>>> jnp.fft.irfft2(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'Array([[ 1.75, -0.25],\n'
                   '       [-0.25,  0.75]], dtype=float32)',
 'jnp.fft.irfftn': '>>> jnp.fft.irfftn(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([ 0.25, -1.  ,  0.25, -1.  ], dtype=float32)',
 'jnp.fft.rfft': '>>> jnp.fft.rfft(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([ 1.  +0.j       , -2.75+2.1650636j], dtype=complex64)',
 'jnp.fft.rfft2': '>>> jnp.fft.rfft2(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                  'Array([[ 7.+0.j, -1.+0.j],\n'
                  '       [-1.+0.j,  3.+0.j]], dtype=complex64)',
 'jnp.fft.rfftfreq': '>>> jnp.fft.rfftfreq(4)\nArray([0.  , 0.25, 0.5 ], dtype=float32)',
 'jnp.fft.rfftn': '>>> jnp.fft.rfftn(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([ 1.  +0.j       , -2.75+2.1650636j], dtype=complex64)',
 'jnp.flatnonzero': '>>> jnp.flatnonzero(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([0, 2], dtype=int32)',
 'jnp.flip': '>>> jnp.flip(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([ 2.5,  0. , -1.5], dtype=float32)',
 'jnp.fliplr': '>>> jnp.fliplr(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
               'Array([[1., 2.],\n'
               '       [3., 1.]], dtype=float32)',
 'jnp.flipud': '>>> jnp.flipud(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([ 2.5,  0. , -1.5], dtype=float32)',
 'jnp.float_power': '>>> jnp.float_power(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                    '0.75]))\n'
                    'Array([0.70710677, 0.70710677, 0.80592746], dtype=float32)',
 'jnp.floor_divide': '>>> jnp.floor_divide(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                     '0.75]))\n'
                     'Array([1., 1., 1.], dtype=float32)',
 'jnp.fmax': '>>> jnp.fmax(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.fmin': '>>> jnp.fmin(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.fmod': '>>> jnp.fmod(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, 0.75]))\n'
             'Array([0., 0., 0.], dtype=float32)',
 'jnp.frexp': '>>> jnp.frexp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              '(Array([-0.75 ,  0.   ,  0.625], dtype=float32), Array([1, 0, 2], dtype=int32))',
 'jnp.from_dlpack': '>>> jnp.from_dlpack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.frombuffer': ">>> jnp.frombuffer(b'\\x01\\x02\\x03', dtype=jnp.uint8)\n"
                   'Array([1, 2, 3], dtype=uint8)',
 'jnp.fromfunction': '>>> jnp.fromfunction(lambda i, j: i + j, (2, 3))\n'
                     'Array([[0., 1., 2.],\n'
                     '       [1., 2., 3.]], dtype=float32)',
 'jnp.fromstring': ">>> jnp.fromstring('1 2 3', dtype=jnp.int32, sep=' ')\n"
                   'Array([1, 2, 3], dtype=int32)',
 'jnp.full': '>>> jnp.full((2, 2), 7)\n'
             'Array([[7, 7],\n'
             '       [7, 7]], dtype=int32, weak_type=True)',
 'jnp.full_like': '>>> jnp.full_like(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.gcd': '>>> jnp.gcd(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
            'Array([1, 2, 6], dtype=int32)',
 'jnp.geomspace': '>>> jnp.geomspace(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                  '0.75]))\n'
                  'Array([[0.25      , 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25000003, 0.5       , 0.75      ],\n'
                  '       [0.25      , 0.5       , 0.75      ]], dtype=float32)',
 'jnp.gradient': '>>> jnp.gradient(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([1.5, 2. , 2.5], dtype=float32)',
 'jnp.greater': '>>> jnp.greater(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([False, False, False], dtype=bool)',
 'jnp.greater_equal': '>>> jnp.greater_equal(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, '
                      '0.0, 2.5]))\n'
                      'Array([ True,  True,  True], dtype=bool)',
 'jnp.hamming': '>>> jnp.hamming(5)\n'
                'Array([0.08000001, 0.54      , 1.        , 0.54      , 0.08000001], '
                'dtype=float32)',
 'jnp.hanning': '>>> jnp.hanning(5)\n'
                'Array([0.        , 0.49999997, 1.        , 0.49999997, 0.        ], '
                'dtype=float32)',
 'jnp.heaviside': '>>> jnp.heaviside(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([0., 0., 1.], dtype=float32)',
 'jnp.histogram': '>>> jnp.histogram(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  '(Array([1., 0., 0., 1., 0., 0., 0., 0., 0., 1.], dtype=float32), '
                  'Array([-1.5       , -1.1       , -0.7       , -0.29999995,  0.10000002,\n'
                  '        0.5       ,  0.9000001 ,  1.3       ,  1.7       ,  2.1000001 ,\n'
                  '        2.5       ], dtype=float32))',
 'jnp.histogram2d': '>>> jnp.histogram2d(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                    '2.5]))\n'
                    '(Array([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 1, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n'
                    '       [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]], dtype=int32), Array([-1.5       , '
                    '-1.1       , -0.7       , -0.29999995,  0.10000002,\n'
                    '        0.5       ,  0.9000001 ,  1.3       ,  1.7       ,  2.1000001 ,\n'
                    '        2.5       ], dtype=float32), Array([-1.5       , -1.1       , '
                    '-0.7       , -0.29999995,  0.10000002,\n'
                    '        0.5       ,  0.9000001 ,  1.3       ,  1.7       ,  2.1000001 ,\n'
                    '        2.5       ], dtype=float32))',
 'jnp.histogram_bin_edges': '>>> jnp.histogram_bin_edges(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                            'Array([-1.5       , -1.1       , -0.7       , -0.29999995,  '
                            '0.10000002,\n'
                            '        0.5       ,  0.9000001 ,  1.3       ,  1.7       ,  2.1000001 '
                            ',\n'
                            '        2.5       ], dtype=float32)',
 'jnp.histogramdd': '>>> jnp.histogramdd(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    '(Array([1, 0, 0, 1, 0, 0, 0, 0, 0, 1], dtype=int32), [Array([-1.5       , '
                    '-1.1       , -0.7       , -0.29999995,  0.10000002,\n'
                    '        0.5       ,  0.9000001 ,  1.3       ,  1.7       ,  2.1000001 ,\n'
                    '        2.5       ], dtype=float32)])',
 'jnp.hsplit': '>>> jnp.hsplit(jnp.arange(4).reshape(2, 2), 2)\n'
               '[Array([[0],\n'
               '       [2]], dtype=int32), Array([[1],\n'
               '       [3]], dtype=int32)]',
 'jnp.hstack': '>>> jnp.hstack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.hypot': '>>> jnp.hypot(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([2.1213202, 0.       , 3.535534 ], dtype=float32)',
 'jnp.i0': '>>> jnp.i0(jnp.asarray([-1.5, 0.0, 2.5]))\n'
           'Array([1.6467235 , 0.99999994, 3.2898393 ], dtype=float32)',
 'jnp.identity': '>>> jnp.identity(2)\nArray([[1., 0.],\n       [0., 1.]], dtype=float32)',
 'jnp.indices': '>>> jnp.indices(jnp.asarray([1, 2, 6]))\n'
                'Array([[[[0, 0, 0, 0, 0, 0],\n'
                '         [0, 0, 0, 0, 0, 0]]],\n'
                '\n'
                '\n'
                '       [[[0, 0, 0, 0, 0, 0],\n'
                '         [1, 1, 1, 1, 1, 1]]],\n'
                '\n'
                '\n'
                '       [[[0, 1, 2, 3, 4, 5],\n'
                '         [0, 1, 2, 3, 4, 5]]]], dtype=int32)',
 'jnp.inner': '>>> jnp.inner(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array(8.5, dtype=float32)',
 'jnp.insert': '>>> jnp.insert(jnp.arange(4), 1, 9)\nArray([0, 9, 1, 2, 3], dtype=int32)',
 'jnp.interp': '>>> jnp.interp(jnp.asarray([0.5, 1.5]), jnp.asarray([0.0, 1.0, 2.0]), '
               'jnp.asarray([0.0, 10.0, 20.0]))\n'
               'Array([ 5., 15.], dtype=float32)',
 'jnp.intersect1d': '>>> jnp.intersect1d(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                    '2.5]))\n'
                    'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.isclose': '>>> jnp.isclose(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ True,  True,  True], dtype=bool)',
 'jnp.iscomplex': '>>> jnp.iscomplex(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([False, False, False], dtype=bool)',
 'jnp.iscomplexobj': '>>> jnp.iscomplexobj(jnp.asarray([-1.5, 0.0, 2.5]))\nFalse',
 'jnp.isdtype': ">>> jnp.isdtype(jnp.float32, 'real floating')\nTrue",
 'jnp.isin': '>>> jnp.isin(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([ True,  True,  True], dtype=bool)',
 'jnp.isreal': '>>> jnp.isreal(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([ True,  True,  True], dtype=bool)',
 'jnp.isrealobj': '>>> jnp.isrealobj(jnp.asarray([-1.5, 0.0, 2.5]))\nTrue',
 'jnp.isscalar': '>>> jnp.isscalar(3.0), jnp.isscalar(jnp.ones(2))\n(True, False)',
 'jnp.issubdtype': '>>> jnp.issubdtype(jnp.int32, jnp.integer)\nTrue',
 'jnp.ix_': '>>> jnp.ix_(jnp.asarray([0, 1]), jnp.asarray([2, 3]))\n'
            '(Array([[0],\n'
            '       [1]], dtype=int32), Array([[2, 3]], dtype=int32))',
 'jnp.kaiser': '>>> jnp.kaiser(4, 5.0)\n'
               'Array([0.03671089, 0.77532196, 0.77532196, 0.03671089], dtype=float32)',
 'jnp.kron': '>>> jnp.kron(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([ 2.25, -0.  , -3.75, -0.  ,  0.  ,  0.  , -3.75,  0.  ,  6.25], '
             'dtype=float32)',
 'jnp.lcm': '>>> jnp.lcm(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
            'Array([1, 2, 6], dtype=int32)',
 'jnp.ldexp': '>>> jnp.ldexp(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
              'Array([  2.,   8., 384.], dtype=float32)',
 'jnp.less': '>>> jnp.less(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([False, False, False], dtype=bool)',
 'jnp.less_equal': '>>> jnp.less_equal(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                   '2.5]))\n'
                   'Array([ True,  True,  True], dtype=bool)',
 'jnp.lexsort': '>>> jnp.lexsort((jnp.asarray([3, 1, 2, 1]), jnp.asarray([1, 2, 1, 1])))\n'
                'Array([3, 2, 0, 1], dtype=int32)',
 'jnp.linalg.cholesky': '>>> jnp.linalg.cholesky(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                        'Array([[1.4142135 , 0.        ],\n'
                        '       [0.70710677, 1.5811388 ]], dtype=float32)',
 'jnp.linalg.cond': '>>> jnp.linalg.cond(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    'Array(2.618034, dtype=float32)',
 'jnp.linalg.cross': '>>> jnp.linalg.cross(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                     '2.5]))\n'
                     'Array([0., 0., 0.], dtype=float32)',
 'jnp.linalg.det': '>>> jnp.linalg.det(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'Array(5., dtype=float32)',
 'jnp.linalg.diagonal': '>>> jnp.linalg.diagonal(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                        'Array([2., 3.], dtype=float32)',
 'jnp.linalg.eig': '>>> jnp.linalg.eig(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'EigResult(eigenvalues=Array([1.381966+0.j, 3.618034+0.j], dtype=complex64), '
                   'eigenvectors=Array([[-0.8506508+0.j, -0.5257311+0.j],\n'
                   '       [ 0.5257311+0.j, -0.8506508+0.j]], dtype=complex64))',
 'jnp.linalg.eigh': '>>> jnp.linalg.eigh(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    'EighResult(eigenvalues=Array([1.381966, 3.618034], dtype=float32), '
                    'eigenvectors=Array([[-0.8506508,  0.5257311],\n'
                    '       [ 0.5257311,  0.8506508]], dtype=float32))',
 'jnp.linalg.eigvals': '>>> jnp.linalg.eigvals(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                       'Array([1.381966+0.j, 3.618034+0.j], dtype=complex64)',
 'jnp.linalg.eigvalsh': '>>> jnp.linalg.eigvalsh(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                        'Array([1.381966, 3.618034], dtype=float32)',
 'jnp.linalg.inv': '>>> jnp.linalg.inv(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'Array([[ 0.6, -0.2],\n'
                   '       [-0.2,  0.4]], dtype=float32)',
 'jnp.linalg.lstsq': '>>> jnp.linalg.lstsq(jnp.asarray([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), '
                     'jnp.asarray([1.0, 4.0, 0.0]))[0]\n'
                     'Array([1., 2.], dtype=float32)',
 'jnp.linalg.matmul': '>>> jnp.linalg.matmul(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, '
                      '0.0, 2.5]))\n'
                      'Array(8.5, dtype=float32)',
 'jnp.linalg.matrix_norm': '>>> jnp.linalg.matrix_norm(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                           'Array(3.8729835, dtype=float32)',
 'jnp.linalg.matrix_power': '>>> jnp.linalg.matrix_power(jnp.asarray([[1, 1], [0, 1]]), 3)\n'
                            'Array([[1, 3],\n'
                            '       [0, 1]], dtype=int32)',
 'jnp.linalg.matrix_rank': '>>> jnp.linalg.matrix_rank(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array(1, dtype=int32)',
 'jnp.linalg.matrix_transpose': '>>> jnp.linalg.matrix_transpose(jnp.asarray([[2.0, 1.0], [1.0, '
                                '3.0]]))\n'
                                'Array([[2., 1.],\n'
                                '       [1., 3.]], dtype=float32)',
 'jnp.linalg.multi_dot': '>>> jnp.linalg.multi_dot(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                         'Array(5., dtype=float32)',
 'jnp.linalg.norm': '>>> jnp.linalg.norm(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array(2.9154758, dtype=float32)',
 'jnp.linalg.outer': '>>> jnp.linalg.outer(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                     '2.5]))\n'
                     'Array([[ 2.25, -0.  , -3.75],\n'
                     '       [-0.  ,  0.  ,  0.  ],\n'
                     '       [-3.75,  0.  ,  6.25]], dtype=float32)',
 'jnp.linalg.pinv': '>>> jnp.linalg.pinv(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    'Array([[ 0.59999996, -0.19999999],\n'
                    '       [-0.19999999,  0.39999998]], dtype=float32)',
 'jnp.linalg.qr': '>>> jnp.linalg.qr(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                  'QRResult(Q=Array([[-0.8944272, -0.4472136],\n'
                  '       [-0.4472136,  0.8944272]], dtype=float32), R=Array([[-2.236068, '
                  '-2.236068],\n'
                  '       [ 0.      ,  2.236068]], dtype=float32))',
 'jnp.linalg.slogdet': '>>> jnp.linalg.slogdet(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                       'SlogdetResult(sign=Array(1., dtype=float32), logabsdet=Array(1.609438, '
                       'dtype=float32))',
 'jnp.linalg.solve': '>>> jnp.linalg.solve(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                     'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     'Array([[1., 0.],\n'
                     '       [0., 1.]], dtype=float32)',
 'jnp.linalg.svd': '>>> jnp.linalg.svd(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'SVDResult(U=Array([[-0.5257311, -0.8506508],\n'
                   '       [-0.8506508,  0.5257311]], dtype=float32), S=Array([3.618034, '
                   '1.381966], dtype=float32), Vh=Array([[-0.5257311, -0.8506508],\n'
                   '       [-0.8506508,  0.5257311]], dtype=float32))',
 'jnp.linalg.svdvals': '>>> jnp.linalg.svdvals(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                       'Array([3.618034, 1.381966], dtype=float32)',
 'jnp.linalg.tensordot': '>>> jnp.linalg.tensordot(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                         'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                         'Array(15., dtype=float32)',
 'jnp.linalg.tensorinv': '>>> jnp.linalg.tensorinv(jnp.eye(2) * 2, ind=1)\n'
                         'Array([[0.5, 0. ],\n'
                         '       [0. , 0.5]], dtype=float32)',
 'jnp.linalg.tensorsolve': '>>> jnp.linalg.tensorsolve(jnp.eye(4).reshape(2, 2, 2, 2) * 2, '
                           'jnp.ones((2, 2)))\n'
                           'Array([[0.5, 0.5],\n'
                           '       [0.5, 0.5]], dtype=float32)',
 'jnp.linalg.trace': '>>> jnp.linalg.trace(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     'Array(5., dtype=float32)',
 'jnp.linalg.vecdot': '>>> jnp.linalg.vecdot(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, '
                      '0.0, 2.5]))\n'
                      'Array(8.5, dtype=float32)',
 'jnp.linalg.vector_norm': '>>> jnp.linalg.vector_norm(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array(2.9154758, dtype=float32)',
 'jnp.linspace': '>>> jnp.linspace(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([[-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5],\n'
                 '       [-1.5,  0. ,  2.5]], dtype=float32)',
 'jnp.log': '>>> jnp.log(jnp.asarray([0.25, 0.5, 0.75]))\n'
            'Array([-1.3862944, -0.6931472, -0.2876821], dtype=float32)',
 'jnp.log1p': '>>> jnp.log1p(jnp.asarray([0.25, 0.5, 0.75]))\n'
              'Array([0.22314356, 0.40546513, 0.5596158 ], dtype=float32)',
 'jnp.logaddexp': '>>> jnp.logaddexp(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([-0.8068528,  0.6931472,  3.1931472], dtype=float32)',
 'jnp.logaddexp2': '>>> jnp.logaddexp2(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                   '2.5]))\n'
                   'Array([-0.5,  1. ,  3.5], dtype=float32)',
 'jnp.logspace': '>>> jnp.logspace(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([[3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02],\n'
                 '       [3.1622775e-02, 1.0000000e+00, 3.1622775e+02]], dtype=float32)',
 'jnp.mask_indices': '>>> jnp.mask_indices(3, jnp.triu)\n'
                     '(Array([0, 0, 0, 1, 1, 2], dtype=int32), Array([0, 1, 2, 1, 2, 2], '
                     'dtype=int32))',
 'jnp.matmul': '>>> jnp.matmul(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array(8.5, dtype=float32)',
 'jnp.matrix_transpose': '>>> jnp.matrix_transpose(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                         'Array([[2., 1.],\n'
                         '       [1., 3.]], dtype=float32)',
 'jnp.matvec': '>>> jnp.matvec(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), jnp.asarray([[2.0, 1.0], '
               '[1.0, 3.0]]))\n'
               'Array([[ 5.,  5.],\n'
               '       [ 5., 10.]], dtype=float32)',
 'jnp.maximum': '>>> jnp.maximum(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.mean': '>>> jnp.mean(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0.33333334, dtype=float32)',
 'jnp.median': '>>> jnp.median(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0., dtype=float32)',
 'jnp.meshgrid': '>>> jnp.meshgrid(jnp.asarray([1, 2]), jnp.asarray([3, 4, 5]))\n'
                 '[Array([[1, 2],\n'
                 '       [1, 2],\n'
                 '       [1, 2]], dtype=int32), Array([[3, 3],\n'
                 '       [4, 4],\n'
                 '       [5, 5]], dtype=int32)]',
 'jnp.minimum': '>>> jnp.minimum(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.mod': '>>> jnp.mod(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, 0.75]))\n'
            'Array([0., 0., 0.], dtype=float32)',
 'jnp.modf': '>>> jnp.modf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             '(Array([-0.5,  0. ,  0.5], dtype=float32), Array([-1.,  0.,  2.], dtype=float32))',
 'jnp.moveaxis': '>>> jnp.moveaxis(jnp.arange(6).reshape(2, 3), 0, 1)\n'
                 'Array([[0, 3],\n'
                 '       [1, 4],\n'
                 '       [2, 5]], dtype=int32)',
 'jnp.multiply': '>>> jnp.multiply(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([2.25, 0.  , 6.25], dtype=float32)',
 'jnp.nan_to_num': '>>> jnp.nan_to_num(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.nanargmax': '>>> jnp.nanargmax(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2, dtype=int32)',
 'jnp.nanargmin': '>>> jnp.nanargmin(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0, dtype=int32)',
 'jnp.nancumprod': '>>> jnp.nancumprod(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-1.5, -0. , -0. ], dtype=float32)',
 'jnp.nancumsum': '>>> jnp.nancumsum(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([-1.5, -1.5,  1. ], dtype=float32)',
 'jnp.nanmax': '>>> jnp.nanmax(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2.5, dtype=float32)',
 'jnp.nanmean': '>>> jnp.nanmean(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0.33333334, dtype=float32)',
 'jnp.nanmedian': '>>> jnp.nanmedian(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0., dtype=float32)',
 'jnp.nanmin': '>>> jnp.nanmin(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(-1.5, dtype=float32)',
 'jnp.nanpercentile': '>>> jnp.nanpercentile(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                      '0.5, 0.75]))\n'
                      'Array([0.25125, 0.2525 , 0.25375], dtype=float32)',
 'jnp.nanprod': '>>> jnp.nanprod(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(-0., dtype=float32)',
 'jnp.nanquantile': '>>> jnp.nanquantile(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                    '0.75]))\n'
                    'Array([0.375, 0.5  , 0.625], dtype=float32)',
 'jnp.nanstd': '>>> jnp.nanstd(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(1.6499158, dtype=float32)',
 'jnp.nansum': '>>> jnp.nansum(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(1., dtype=float32)',
 'jnp.nanvar': '>>> jnp.nanvar(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2.7222223, dtype=float32)',
 'jnp.nextafter': '>>> jnp.nextafter(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.nonzero': '>>> jnp.nonzero(jnp.asarray([-1.5, 0.0, 2.5]))\n(Array([0, 2], dtype=int32),)',
 'jnp.not_equal': '>>> jnp.not_equal(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([False, False, False], dtype=bool)',
 'jnp.ones': '>>> jnp.ones(jnp.asarray([1, 2, 6]))\n'
             'Array([[[1., 1., 1., 1., 1., 1.],\n'
             '        [1., 1., 1., 1., 1., 1.]]], dtype=float32)',
 'jnp.ones_like': '>>> jnp.ones_like(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([1., 1., 1.], dtype=float32)',
 'jnp.outer': '>>> jnp.outer(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([[ 2.25, -0.  , -3.75],\n'
              '       [-0.  ,  0.  ,  0.  ],\n'
              '       [-3.75,  0.  ,  6.25]], dtype=float32)',
 'jnp.pad': '>>> jnp.pad(jnp.asarray([1, 2]), 1)\nArray([0, 1, 2, 0], dtype=int32)',
 'jnp.partition': '>>> jnp.partition(jnp.asarray([3, 1, 2]), 1)\nArray([1, 2, 3], dtype=int32)',
 'jnp.percentile': '>>> jnp.percentile(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                   '0.75]))\n'
                   'Array([0.25125, 0.2525 , 0.25375], dtype=float32)',
 'jnp.permute_dims': '>>> jnp.permute_dims(jnp.arange(6).reshape(2, 3), (1, 0))\n'
                     'Array([[0, 3],\n'
                     '       [1, 4],\n'
                     '       [2, 5]], dtype=int32)',
 'jnp.piecewise': '>>> jnp.piecewise(jnp.asarray([-1.0, 2.0]), [jnp.asarray([True, False]), '
                  'jnp.asarray([False, True])], [-1.0, 1.0])\n'
                  'Array([-1.,  1.], dtype=float32)',
 'jnp.poly': '>>> jnp.poly(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([ 1.  , -1.  , -3.75,  0.  ], dtype=float32)',
 'jnp.polyadd': '>>> jnp.polyadd(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-3.,  0.,  5.], dtype=float32)',
 'jnp.polyder': '>>> jnp.polyder(jnp.asarray([-1.5, 0.0, 2.5]))\nArray([-3.,  0.], dtype=float32)',
 'jnp.polyfit': '>>> jnp.polyfit(jnp.asarray([0.0, 1.0, 2.0]), jnp.asarray([1.0, 3.0, 5.0]), 1)\n'
                'Array([1.9999998, 1.0000001], dtype=float32)',
 'jnp.polyint': '>>> jnp.polyint(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.5,  0. ,  2.5,  0. ], dtype=float32)',
 'jnp.polymul': '>>> jnp.polymul(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ 2.25,  0.  , -7.5 ,  0.  ,  6.25], dtype=float32)',
 'jnp.polysub': '>>> jnp.polysub(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([0., 0., 0.], dtype=float32)',
 'jnp.polyval': '>>> jnp.polyval(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.875,  2.5  , -6.875], dtype=float32)',
 'jnp.pow': '>>> jnp.pow(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, 0.75]))\n'
            'Array([0.70710677, 0.70710677, 0.80592746], dtype=float32)',
 'jnp.prod': '>>> jnp.prod(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(-0., dtype=float32)',
 'jnp.ptp': '>>> jnp.ptp(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(4., dtype=float32)',
 'jnp.quantile': '>>> jnp.quantile(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                 '0.75]))\n'
                 'Array([0.375, 0.5  , 0.625], dtype=float32)',
 'jnp.ravel': '>>> jnp.ravel(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.ravel_multi_index': '>>> jnp.ravel_multi_index((jnp.asarray([0, 1]), jnp.asarray([2, 0])), '
                          '(2, 3))\n'
                          'Array([2, 3], dtype=int32)',
 'jnp.reciprocal': '>>> jnp.reciprocal(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-0.6666667,        inf,  0.4      ], dtype=float32)',
 'jnp.repeat': '>>> jnp.repeat(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
               'Array([1, 2, 2, 6, 6, 6, 6, 6, 6], dtype=int32)',
 'jnp.reshape': '>>> jnp.reshape(jnp.arange(6), (2, 3))\n'
                'Array([[0, 1, 2],\n'
                '       [3, 4, 5]], dtype=int32)',
 'jnp.resize': '>>> jnp.resize(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
               'Array([[[1, 2, 6, 1, 2, 6],\n'
               '        [1, 2, 6, 1, 2, 6]]], dtype=int32)',
 'jnp.rint': '>>> jnp.rint(jnp.asarray([-1.5, 0.0, 2.5]))\nArray([-2.,  0.,  2.], dtype=float32)',
 'jnp.roll': '>>> jnp.roll(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
             'Array([1, 2, 6], dtype=int32)',
 'jnp.rollaxis': '>>> jnp.rollaxis(jnp.arange(6).reshape(2, 3), 1)\n'
                 'Array([[0, 3],\n'
                 '       [1, 4],\n'
                 '       [2, 5]], dtype=int32)',
 'jnp.roots': '>>> jnp.roots(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([ 1.2909944+0.j, -1.2909944+0.j], dtype=complex64)',
 'jnp.rot90': '>>> jnp.rot90(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
              'Array([[1., 3.],\n'
              '       [2., 1.]], dtype=float32)',
 'jnp.row_stack': '>>> jnp.row_stack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([[-1.5],\n'
                  '       [ 0. ],\n'
                  '       [ 2.5]], dtype=float32)',
 'jnp.searchsorted': '>>> jnp.searchsorted(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                     '2.5]))\n'
                     'Array([0, 1, 2], dtype=int32)',
 'jnp.select': '>>> jnp.select([jnp.asarray([True, False]), jnp.asarray([False, True])], '
               '[jnp.asarray([1, 2]), jnp.asarray([3, 4])])\n'
               'Array([1, 4], dtype=int32)',
 'jnp.setdiff1d': '>>> jnp.setdiff1d(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                  '2.5]))\n'
                  'Array([], shape=(0,), dtype=float32)',
 'jnp.sin': '>>> jnp.sin(jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([-0.997495 ,  0.       ,  0.5984722], dtype=float32)',
 'jnp.sinc': '>>> jnp.sinc(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-0.21220659,  1.        ,  0.12732396], dtype=float32)',
 'jnp.sinh': '>>> jnp.sinh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-2.1292794,  0.       ,  6.0502043], dtype=float32)',
 'jnp.sort': '>>> jnp.sort(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.sort_complex': '>>> jnp.sort_complex(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([-1.5+0.j,  0. +0.j,  2.5+0.j], dtype=complex64)',
 'jnp.spacing': '>>> jnp.spacing(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.1920929e-07,  1.4012985e-45,  2.3841858e-07], dtype=float32)',
 'jnp.split': '>>> jnp.split(jnp.arange(6), 3)\n'
              '[Array([0, 1], dtype=int32), Array([2, 3], dtype=int32), Array([4, 5], '
              'dtype=int32)]',
 'jnp.sqrt': '>>> jnp.sqrt(jnp.asarray([0.25, 0.5, 0.75]))\n'
             'Array([0.5       , 0.70710677, 0.8660254 ], dtype=float32)',
 'jnp.squeeze': '>>> jnp.squeeze(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.stack': '>>> jnp.stack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
              'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.std': '>>> jnp.std(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(1.6499158, dtype=float32)',
 'jnp.subtract': '>>> jnp.subtract(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([0., 0., 0.], dtype=float32)',
 'jnp.sum': '>>> jnp.sum(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(1., dtype=float32)',
 'jnp.swapaxes': '>>> jnp.swapaxes(jnp.arange(6).reshape(2, 3), 0, 1)\n'
                 'Array([[0, 3],\n'
                 '       [1, 4],\n'
                 '       [2, 5]], dtype=int32)',
 'jnp.take': '>>> jnp.take(jnp.asarray([4, 5, 6]), jnp.asarray([0, 2]))\n'
             'Array([4, 6], dtype=int32)',
 'jnp.take_along_axis': '>>> jnp.take_along_axis(jnp.asarray([[3, 1], [2, 4]]), jnp.asarray([[1], '
                        '[0]]), axis=1)\n'
                        'Array([[1],\n'
                        '       [2]], dtype=int32)',
 'jnp.tan': '>>> jnp.tan(jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([-14.10142  ,   0.       ,  -0.7470223], dtype=float32)',
 'jnp.tanh': '>>> jnp.tanh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array([-0.9051482,  0.       ,  0.9866143], dtype=float32)',
 'jnp.tensordot': '>>> jnp.tensordot(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), jnp.asarray([[2.0, '
                  '1.0], [1.0, 3.0]]))\n'
                  'Array(15., dtype=float32)',
 'jnp.tile': '>>> jnp.tile(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
             'Array([[[1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6],\n'
             '        [1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6, 1, 2, 6]]], dtype=int32)',
 'jnp.trace': '>>> jnp.trace(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\nArray(5., dtype=float32)',
 'jnp.transpose': '>>> jnp.transpose(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.trapezoid': '>>> jnp.trapezoid(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(0.5, dtype=float32)',
 'jnp.tri': '>>> jnp.tri(3, 2)\n'
            'Array([[1., 0.],\n'
            '       [1., 1.],\n'
            '       [1., 1.]], dtype=float32)',
 'jnp.tril': '>>> jnp.tril(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
             'Array([[2., 0.],\n'
             '       [1., 3.]], dtype=float32)',
 'jnp.tril_indices': '>>> jnp.tril_indices(2)\n'
                     '(Array([0, 1, 1], dtype=int32), Array([0, 0, 1], dtype=int32))',
 'jnp.tril_indices_from': '>>> jnp.tril_indices_from(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                          '(Array([0, 1, 1], dtype=int32), Array([0, 0, 1], dtype=int32))',
 'jnp.trim_zeros': '>>> jnp.trim_zeros(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.triu': '>>> jnp.triu(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
             'Array([[2., 1.],\n'
             '       [0., 3.]], dtype=float32)',
 'jnp.triu_indices': '>>> jnp.triu_indices(2)\n'
                     '(Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))',
 'jnp.triu_indices_from': '>>> jnp.triu_indices_from(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                          '(Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))',
 'jnp.union1d': '>>> jnp.union1d(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.unique': '>>> jnp.unique(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.unique_all': '>>> jnp.unique_all(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'UniqueAllResult(values=Array([-1.5,  0. ,  2.5], dtype=float32), '
                   'indices=Array([0, 1, 2], dtype=int32), inverse_indices=Array([0, 1, 2], '
                   'dtype=int32), counts=Array([1, 1, 1], dtype=int32))',
 'jnp.unique_counts': '>>> jnp.unique_counts(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'UniqueCountsResult(values=Array([-1.5,  0. ,  2.5], dtype=float32), '
                      'counts=Array([1, 1, 1], dtype=int32))',
 'jnp.unique_inverse': '>>> jnp.unique_inverse(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'UniqueInverseResult(values=Array([-1.5,  0. ,  2.5], dtype=float32), '
                       'inverse_indices=Array([0, 1, 2], dtype=int32))',
 'jnp.unique_values': '>>> jnp.unique_values(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.unravel_index': '>>> jnp.unravel_index(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, 6]))\n'
                      '(Array([0, 0, 0], dtype=int32), Array([0, 0, 1], dtype=int32), Array([1, 2, '
                      '0], dtype=int32))',
 'jnp.unstack': '>>> jnp.unstack(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                '(Array(-1.5, dtype=float32), Array(0., dtype=float32), Array(2.5, dtype=float32))',
 'jnp.unwrap': '>>> jnp.unwrap(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jnp.vander': '>>> jnp.vander(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([[ 2.25, -1.5 ,  1.  ],\n'
               '       [ 0.  ,  0.  ,  1.  ],\n'
               '       [ 6.25,  2.5 ,  1.  ]], dtype=float32)',
 'jnp.var': '>>> jnp.var(jnp.asarray([-1.5, 0.0, 2.5]))\nArray(2.7222223, dtype=float32)',
 'jnp.vdot': '>>> jnp.vdot(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
             'Array(8.5, dtype=float32)',
 'jnp.vecdot': '>>> jnp.vecdot(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array(8.5, dtype=float32)',
 'jnp.vecmat': '>>> jnp.vecmat(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), jnp.asarray([[2.0, 1.0], '
               '[1.0, 3.0]]))\n'
               'Array([[ 5.,  5.],\n'
               '       [ 5., 10.]], dtype=float32)',
 'jnp.vsplit': '>>> jnp.vsplit(jnp.arange(4).reshape(2, 2), 2)\n'
               '[Array([[0, 1]], dtype=int32), Array([[2, 3]], dtype=int32)]',
 'jnp.where': '>>> jnp.where(jnp.asarray([-1.5, 0.0, 2.5]))\n(Array([0, 2], dtype=int32),)',
 'jnp.zeros': '>>> jnp.zeros(jnp.asarray([1, 2, 6]))\n'
              'Array([[[0., 0., 0., 0., 0., 0.],\n'
              '        [0., 0., 0., 0., 0., 0.]]], dtype=float32)',
 'jnp.zeros_like': '>>> jnp.zeros_like(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([0., 0., 0.], dtype=float32)',
 'jsp.linalg.cholesky': '>>> jsp.linalg.cholesky(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                        'Array([[1.4142135 , 0.70710677],\n'
                        '       [0.        , 1.5811388 ]], dtype=float32)',
 'jsp.linalg.circulant': '>>> jsp.linalg.circulant(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([[-1.5,  2.5,  0. ],\n'
                         '       [ 0. , -1.5,  2.5],\n'
                         '       [ 2.5,  0. , -1.5]], dtype=float32)',
 'jsp.linalg.companion': '>>> jsp.linalg.companion(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([[0.       , 1.6666666],\n'
                         '       [1.       , 0.       ]], dtype=float32)',
 'jsp.linalg.det': '>>> jsp.linalg.det(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'Array(5., dtype=float32)',
 'jsp.linalg.eigh': '>>> jsp.linalg.eigh(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    '(Array([1.381966, 3.618034], dtype=float32), Array([[-0.8506508,  '
                    '0.5257311],\n'
                    '       [ 0.5257311,  0.8506508]], dtype=float32))',
 'jsp.linalg.expm': '>>> jsp.linalg.expm(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                    'Array([[13.181509, 14.883947],\n'
                    '       [14.883948, 28.065462]], dtype=float32)',
 'jsp.linalg.expm_frechet': '>>> jsp.linalg.expm_frechet(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                            'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                            '(Array([[13.181508, 14.883944],\n'
                            '       [14.883939, 28.065437]], dtype=float32), Array([[41.246967, '
                            '57.833344],\n'
                            '       [57.833313, 99.08023 ]], dtype=float32))',
 'jsp.linalg.fiedler': '>>> jsp.linalg.fiedler(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([[0. , 1.5, 4. ],\n'
                       '       [1.5, 0. , 2.5],\n'
                       '       [4. , 2.5, 0. ]], dtype=float32)',
 'jsp.linalg.fiedler_companion': '>>> jsp.linalg.fiedler_companion(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                                 'Array([[0.       , 1.6666666],\n'
                                 '       [1.       , 0.       ]], dtype=float32)',
 'jsp.linalg.hankel': '>>> jsp.linalg.hankel(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([[-1.5,  0. ,  2.5],\n'
                      '       [ 0. ,  2.5,  0. ],\n'
                      '       [ 2.5,  0. ,  0. ]], dtype=float32)',
 'jsp.linalg.hessenberg': '>>> jsp.linalg.hessenberg(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                          'Array([[2., 1.],\n'
                          '       [1., 3.]], dtype=float32)',
 'jsp.linalg.inv': '>>> jsp.linalg.inv(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   'Array([[ 0.6, -0.2],\n'
                   '       [-0.2,  0.4]], dtype=float32)',
 'jsp.linalg.lu': '>>> jsp.linalg.lu(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                  '(Array([[1., 0.],\n'
                  '       [0., 1.]], dtype=float32), Array([[1. , 0. ],\n'
                  '       [0.5, 1. ]], dtype=float32), Array([[2. , 1. ],\n'
                  '       [0. , 2.5]], dtype=float32))',
 'jsp.linalg.lu_factor': '>>> jsp.linalg.lu_factor(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                         '(Array([[2. , 1. ],\n'
                         '       [0.5, 2.5]], dtype=float32), Array([0, 1], dtype=int32))',
 'jsp.linalg.polar': '>>> jsp.linalg.polar(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     '(Array([[ 9.9999994e-01, -2.5211193e-09],\n'
                     '       [-2.5211193e-09,  9.9999994e-01]], dtype=float32), Array([[1.9999999 '
                     ', 0.9999998 ],\n'
                     '       [0.99999994, 2.9999998 ]], dtype=float32))',
 'jsp.linalg.qr': '>>> jsp.linalg.qr(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                  '(Array([[-0.8944272, -0.4472136],\n'
                  '       [-0.4472136,  0.8944272]], dtype=float32), Array([[-2.236068, '
                  '-2.236068],\n'
                  '       [ 0.      ,  2.236068]], dtype=float32))',
 'jsp.linalg.qr_multiply': '>>> jsp.linalg.qr_multiply(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                           'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                           '(Array([[-2.236068,  0.      ],\n'
                           '       [-2.236068,  2.236068]], dtype=float32), Array([[-2.236068, '
                           '-2.236068],\n'
                           '       [ 0.      ,  2.236068]], dtype=float32))',
 'jsp.linalg.rsf2csf': '>>> jsp.linalg.rsf2csf(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                       'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                       '(Array([[ 1.381966e+00+0.j, -7.350968e-08+0.j],\n'
                       '       [ 0.000000e+00+0.j,  3.618034e+00+0.j]], dtype=complex64), '
                       'Array([[-1.1755705 +0.j, -1.9021131 +0.j],\n'
                       '       [ 0.72654265+0.j, -3.0776834 +0.j]], dtype=complex64))',
 'jsp.linalg.schur': '>>> jsp.linalg.schur(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     '(Array([[1.381966, 0.      ],\n'
                     '       [0.      , 3.618034]], dtype=float32), Array([[-0.8506508, '
                     '-0.5257311],\n'
                     '       [ 0.5257311, -0.8506508]], dtype=float32))',
 'jsp.linalg.solve': '>>> jsp.linalg.solve(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), '
                     'jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     'Array([[1., 0.],\n'
                     '       [0., 1.]], dtype=float32)',
 'jsp.linalg.solve_triangular': '>>> jsp.linalg.solve_triangular(jnp.asarray([[2.0, 1.0], [1.0, '
                                '3.0]]), jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                                'Array([[0.8333333 , 0.        ],\n'
                                '       [0.33333334, 1.        ]], dtype=float32)',
 'jsp.linalg.sqrtm': '>>> jsp.linalg.sqrtm(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                     'Array([[1.3763821 +0.j, 0.32491967+0.j],\n'
                     '       [0.32491973+0.j, 1.7013017 +0.j]], dtype=complex64)',
 'jsp.linalg.svd': '>>> jsp.linalg.svd(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))\n'
                   '(Array([[-0.5257311, -0.8506508],\n'
                   '       [-0.8506508,  0.5257311]], dtype=float32), Array([3.618034, 1.381966], '
                   'dtype=float32), Array([[-0.5257311, -0.8506508],\n'
                   '       [-0.8506508,  0.5257311]], dtype=float32))',
 'jsp.linalg.toeplitz': '>>> jsp.linalg.toeplitz(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([[-1.5,  0. ,  2.5],\n'
                        '       [ 0. , -1.5,  0. ],\n'
                        '       [ 2.5,  0. , -1.5]], dtype=float32)',
 'jsp.special.betaln': '>>> jsp.special.betaln(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([2.0036802 , 1.1447299 , 0.52734417], dtype=float32)',
 'jsp.special.boxcox': '>>> jsp.special.boxcox(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([-1.1715729 , -0.58578646, -0.2587634 ], dtype=float32)',
 'jsp.special.boxcox1p': '>>> jsp.special.boxcox1p(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([0.22948506, 0.44948977, 0.69536406], dtype=float32)',
 'jsp.special.comb': '>>> jsp.special.comb(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, 0.0, '
                     '2.5]))\n'
                     'Array([0., 1., 1.], dtype=float32)',
 'jsp.special.digamma': '>>> jsp.special.digamma(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.70315665,       -inf, 0.70315665], dtype=float32)',
 'jsp.special.entr': '>>> jsp.special.entr(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([     -inf, -0.      , -2.290727], dtype=float32)',
 'jsp.special.erf': '>>> jsp.special.erf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([-0.96610516,  0.        ,  0.999593  ], dtype=float32)',
 'jsp.special.erfc': '>>> jsp.special.erfc(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([1.9661051e+00, 1.0000000e+00, 4.0695202e-04], dtype=float32)',
 'jsp.special.erfcx': '>>> jsp.special.erfcx(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([18.653885  ,  1.        ,  0.21080637], dtype=float32)',
 'jsp.special.erfinv': '>>> jsp.special.erfinv(jnp.asarray([0.25, 0.5, 0.75]))\n'
                       'Array([0.22531207, 0.47693628, 0.8134199 ], dtype=float32)',
 'jsp.special.expit': '>>> jsp.special.expit(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([0.18242553, 0.5       , 0.9241418 ], dtype=float32)',
 'jsp.special.factorial': '>>> jsp.special.factorial(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0.       , 1.       , 3.3233507], dtype=float32)',
 'jsp.special.fresnel': '>>> jsp.special.fresnel(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        '(Array([-0.69750494,  0.        ,  0.61918175], dtype=float32), '
                        'Array([-0.44526118,  0.        ,  0.45741302], dtype=float32))',
 'jsp.special.gammainc': '>>> jsp.special.gammainc(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([0.743678 , 0.6826895, 0.6515925], dtype=float32)',
 'jsp.special.gammaincc': '>>> jsp.special.gammaincc(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0.25632206, 0.3173105 , 0.34840748], dtype=float32)',
 'jsp.special.gammaln': '>>> jsp.special.gammaln(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.86004704,        inf, 0.28468287], dtype=float32)',
 'jsp.special.gammasgn': '>>> jsp.special.gammasgn(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([1., 1., 1.], dtype=float32)',
 'jsp.special.i0': '>>> jsp.special.i0(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([1.6467234, 1.       , 3.2898388], dtype=float32)',
 'jsp.special.i0e': '>>> jsp.special.i0e(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([0.3674336 , 1.        , 0.27004644], dtype=float32)',
 'jsp.special.i1': '>>> jsp.special.i1(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-0.9816665,  0.       ,  2.5167162], dtype=float32)',
 'jsp.special.i1e': '>>> jsp.special.i1e(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([-0.21903938,  0.        ,  0.20658465], dtype=float32)',
 'jsp.special.kl_div': '>>> jsp.special.kl_div(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, '
                       '0.0, 2.5]))\n'
                       'Array([inf,  0.,  0.], dtype=float32)',
 'jsp.special.log_ndtr': '>>> jsp.special.log_ndtr(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([-2.7059443 , -0.6931472 , -0.00622903], dtype=float32)',
 'jsp.special.log_softmax': '>>> jsp.special.log_softmax(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                            'Array([-4.0956745 , -2.5956743 , -0.09567433], dtype=float32)',
 'jsp.special.loggamma': '>>> jsp.special.loggamma(jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([1.2880225 , 0.5723649 , 0.20328096], dtype=float32)',
 'jsp.special.logit': '>>> jsp.special.logit(jnp.asarray([0.25, 0.5, 0.75]))\n'
                      'Array([-1.0986123,  0.       ,  1.0986123], dtype=float32)',
 'jsp.special.logsumexp': '>>> jsp.special.logsumexp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array(2.5956743, dtype=float32)',
 'jsp.special.ndtr': '>>> jsp.special.ndtr(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([0.0668072, 0.5      , 0.9937903], dtype=float32)',
 'jsp.special.ndtri': '>>> jsp.special.ndtri(jnp.asarray([0.25, 0.5, 0.75]))\n'
                      'Array([-0.67448974,  0.        ,  0.67448974], dtype=float32)',
 'jsp.special.owens_t': '>>> jsp.special.owens_t(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([-1.5, '
                        '0.0, 2.5]))\n'
                        'Array([-0.03313422,  0.        ,  0.00310483], dtype=float32)',
 'jsp.special.polygamma': '>>> jsp.special.polygamma(jnp.asarray([1, 2, 6]), jnp.asarray([1, 2, '
                          '6]))\n'
                          'Array([ 1.644934 , -0.4041138, -0.0041003], dtype=float32)',
 'jsp.special.rel_entr': '>>> jsp.special.rel_entr(jnp.asarray([-1.5, 0.0, 2.5]), '
                         'jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([inf,  0.,  0.], dtype=float32)',
 'jsp.special.softmax': '>>> jsp.special.softmax(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.01664452, 0.07459556, 0.9087599 ], dtype=float32)',
 'jsp.special.spence': '>>> jsp.special.spence(jnp.asarray([0.25, 0.5, 0.75]))\n'
                       'Array([0.9784694 , 0.58224034, 0.26765263], dtype=float32)',
 'jsp.special.wofz': '>>> jsp.special.wofz(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([0.10539922-0.48322734j, 1.        +0.j        ,\n'
                     '       0.00193045+0.25172302j], dtype=complex64)',
 'jsp.special.zeta': '>>> jsp.special.zeta(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([-0.0254852, -0.5      ,  1.3414873], dtype=float32)',
 'jsp.stats.bernoulli.cdf': '>>> jsp.stats.bernoulli.cdf(jnp.asarray([0.25, 0.5, 0.75]), '
                            'jnp.asarray([0.25, 0.5, 0.75]))\n'
                            'Array([0.75, 0.5 , 0.25], dtype=float32)',
 'jsp.stats.bernoulli.logpmf': '>>> jsp.stats.bernoulli.logpmf(jnp.asarray([0.25, 0.5, 0.75]), '
                               'jnp.asarray([0.25, 0.5, 0.75]))\n'
                               'Array([-inf, -inf, -inf], dtype=float32)',
 'jsp.stats.bernoulli.pmf': '>>> jsp.stats.bernoulli.pmf(jnp.asarray([0.25, 0.5, 0.75]), '
                            'jnp.asarray([0.25, 0.5, 0.75]))\n'
                            'Array([0., 0., 0.], dtype=float32)',
 'jsp.stats.bernoulli.ppf': '>>> jsp.stats.bernoulli.ppf(jnp.asarray([0.25, 0.5, 0.75]), '
                            'jnp.asarray([0.25, 0.5, 0.75]))\n'
                            'Array([0., 0., 1.], dtype=float32)',
 'jsp.stats.cauchy.cdf': '>>> jsp.stats.cauchy.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([0.18716702, 0.5       , 0.8788811 ], dtype=float32)',
 'jsp.stats.cauchy.isf': '>>> jsp.stats.cauchy.isf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([ 1.,  0., -1.], dtype=float32)',
 'jsp.stats.cauchy.logcdf': '>>> jsp.stats.cauchy.logcdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                            'Array([-1.675754  , -0.6931472 , -0.12910572], dtype=float32)',
 'jsp.stats.cauchy.logpdf': '>>> jsp.stats.cauchy.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                            'Array([-2.3233848, -1.1447299, -3.1257315], dtype=float32)',
 'jsp.stats.cauchy.logsf': '>>> jsp.stats.cauchy.logsf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([-0.20722963, -0.6931472 , -2.1109822 ], dtype=float32)',
 'jsp.stats.cauchy.pdf': '>>> jsp.stats.cauchy.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([0.09794152, 0.31830993, 0.04390481], dtype=float32)',
 'jsp.stats.cauchy.ppf': '>>> jsp.stats.cauchy.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([-1.,  0.,  1.], dtype=float32)',
 'jsp.stats.cauchy.sf': '>>> jsp.stats.cauchy.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.812833  , 0.5       , 0.12111895], dtype=float32)',
 'jsp.stats.chi2.cdf': '>>> jsp.stats.chi2.cdf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([0.8078005 , 0.743678  , 0.70704883], dtype=float32)',
 'jsp.stats.chi2.logcdf': '>>> jsp.stats.chi2.logcdf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([-0.21344022, -0.2961472 , -0.34665558], dtype=float32)',
 'jsp.stats.chi2.logpdf': '>>> jsp.stats.chi2.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([-1.018054 , -1.1914489, -1.318203 ], dtype=float32)',
 'jsp.stats.chi2.logsf': '>>> jsp.stats.chi2.logsf(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([-1.6492212, -1.3613206, -1.2277492], dtype=float32)',
 'jsp.stats.chi2.pdf': '>>> jsp.stats.chi2.pdf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([0.36129734, 0.3037808 , 0.26761577], dtype=float32)',
 'jsp.stats.chi2.sf': '>>> jsp.stats.chi2.sf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                      '0.5, 0.75]))\n'
                      'Array([0.19219956, 0.25632206, 0.2929512 ], dtype=float32)',
 'jsp.stats.expon.cdf': '>>> jsp.stats.expon.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.        , 0.        , 0.91791505], dtype=float32)',
 'jsp.stats.expon.logcdf': '>>> jsp.stats.expon.logcdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([      -inf,       -inf, -0.0856505], dtype=float32)',
 'jsp.stats.expon.logpdf': '>>> jsp.stats.expon.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([-inf, -0. , -2.5], dtype=float32)',
 'jsp.stats.expon.logsf': '>>> jsp.stats.expon.logsf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([-0. , -0. , -2.5], dtype=float32)',
 'jsp.stats.expon.pdf': '>>> jsp.stats.expon.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.        , 1.        , 0.08208501], dtype=float32)',
 'jsp.stats.expon.ppf': '>>> jsp.stats.expon.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                        'Array([0.28768206, 0.6931472 , 1.3862944 ], dtype=float32)',
 'jsp.stats.expon.sf': '>>> jsp.stats.expon.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([1.        , 1.        , 0.08208501], dtype=float32)',
 'jsp.stats.gamma.cdf': '>>> jsp.stats.gamma.cdf(jnp.asarray([0.25, 0.5, 0.75]), '
                        'jnp.asarray([0.25, 0.5, 0.75]))\n'
                        'Array([0.743678 , 0.6826895, 0.6515925], dtype=float32)',
 'jsp.stats.gamma.logcdf': '>>> jsp.stats.gamma.logcdf(jnp.asarray([0.25, 0.5, 0.75]), '
                           'jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([-0.2961472 , -0.38171518, -0.42833588], dtype=float32)',
 'jsp.stats.gamma.logpdf': '>>> jsp.stats.gamma.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                           'jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([-0.49830174, -0.72579134, -0.8813604 ], dtype=float32)',
 'jsp.stats.gamma.logsf': '>>> jsp.stats.gamma.logsf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([-1.3613206, -1.1478745, -1.0543826], dtype=float32)',
 'jsp.stats.gamma.pdf': '>>> jsp.stats.gamma.pdf(jnp.asarray([0.25, 0.5, 0.75]), '
                        'jnp.asarray([0.25, 0.5, 0.75]))\n'
                        'Array([0.6075616 , 0.48394144, 0.41421902], dtype=float32)',
 'jsp.stats.gamma.sf': '>>> jsp.stats.gamma.sf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([0.25632206, 0.3173105 , 0.34840748], dtype=float32)',
 'jsp.stats.gennorm.cdf': '>>> jsp.stats.gennorm.cdf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0.5029788 , 0.57913953, 0.703585  ], dtype=float32)',
 'jsp.stats.gennorm.logpdf': '>>> jsp.stats.gennorm.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                             'jnp.asarray([0.25, 0.5, 0.75]))\n'
                             'Array([-4.5783076, -2.0934012, -1.673565 ], dtype=float32)',
 'jsp.stats.gennorm.pdf': '>>> jsp.stats.gennorm.pdf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0.01027227, 0.12326716, 0.18757714], dtype=float32)',
 'jsp.stats.geom.logpmf': '>>> jsp.stats.geom.logpmf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([-inf, -inf, -inf], dtype=float32)',
 'jsp.stats.geom.pmf': '>>> jsp.stats.geom.pmf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([0., 0., 0.], dtype=float32)',
 'jsp.stats.gumbel_l.cdf': '>>> jsp.stats.gumbel_l.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([0.19998927, 0.63212055, 0.9999949 ], dtype=float32)',
 'jsp.stats.gumbel_l.logcdf': '>>> jsp.stats.gumbel_l.logcdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                              'Array([-1.6094916e+00, -4.5867509e-01, -5.1193115e-06], '
                              'dtype=float32)',
 'jsp.stats.gumbel_l.logpdf': '>>> jsp.stats.gumbel_l.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                              'Array([-1.7231301, -1.       , -9.682493 ], dtype=float32)',
 'jsp.stats.gumbel_l.logsf': '>>> jsp.stats.gumbel_l.logsf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                             'Array([ -0.22313015,  -1.        , -12.182493  ], dtype=float32)',
 'jsp.stats.gumbel_l.pdf': '>>> jsp.stats.gumbel_l.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([1.7850651e-01, 3.6787942e-01, 6.2365820e-05], dtype=float32)',
 'jsp.stats.gumbel_l.ppf': '>>> jsp.stats.gumbel_l.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([-1.2458994 , -0.36651292,  0.32663426], dtype=float32)',
 'jsp.stats.gumbel_l.sf': '>>> jsp.stats.gumbel_l.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([8.0001068e-01, 3.6787942e-01, 5.1192983e-06], dtype=float32)',
 'jsp.stats.gumbel_r.cdf': '>>> jsp.stats.gumbel_r.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([0.01131429, 0.36787942, 0.92119366], dtype=float32)',
 'jsp.stats.gumbel_r.logcdf': '>>> jsp.stats.gumbel_r.logcdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                              'Array([-4.481689  , -1.        , -0.08208501], dtype=float32)',
 'jsp.stats.gumbel_r.logpdf': '>>> jsp.stats.gumbel_r.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                              'Array([-2.981689, -1.      , -2.582085], dtype=float32)',
 'jsp.stats.gumbel_r.logsf': '>>> jsp.stats.gumbel_r.logsf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                             'Array([-0.01137878, -0.4586751 , -2.5407617 ], dtype=float32)',
 'jsp.stats.gumbel_r.pdf': '>>> jsp.stats.gumbel_r.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([0.05070712, 0.36787942, 0.07561619], dtype=float32)',
 'jsp.stats.gumbel_r.ppf': '>>> jsp.stats.gumbel_r.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([-0.32663426,  0.36651292,  1.2458993 ], dtype=float32)',
 'jsp.stats.gumbel_r.sf': '>>> jsp.stats.gumbel_r.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0.98868567, 0.63212055, 0.07880635], dtype=float32)',
 'jsp.stats.laplace.cdf': '>>> jsp.stats.laplace.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0.11156508, 0.5       , 0.9589575 ], dtype=float32)',
 'jsp.stats.laplace.logpdf': '>>> jsp.stats.laplace.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                             'Array([-2.1931472, -0.6931472, -3.1931472], dtype=float32)',
 'jsp.stats.laplace.pdf': '>>> jsp.stats.laplace.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0.11156508, 0.5       , 0.0410425 ], dtype=float32)',
 'jsp.stats.logistic.cdf': '>>> jsp.stats.logistic.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([0.18242553, 0.5       , 0.9241418 ], dtype=float32)',
 'jsp.stats.logistic.isf': '>>> jsp.stats.logistic.isf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([ 1.0986123,  0.       , -1.0986123], dtype=float32)',
 'jsp.stats.logistic.logpdf': '>>> jsp.stats.logistic.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                              'Array([-1.9028265, -1.3862944, -2.6577795], dtype=float32)',
 'jsp.stats.logistic.pdf': '>>> jsp.stats.logistic.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                           'Array([0.14914645, 0.25      , 0.07010372], dtype=float32)',
 'jsp.stats.logistic.ppf': '>>> jsp.stats.logistic.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([-1.0986123,  0.       ,  1.0986123], dtype=float32)',
 'jsp.stats.logistic.sf': '>>> jsp.stats.logistic.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0.8175745 , 0.5       , 0.07585818], dtype=float32)',
 'jsp.stats.norm.cdf': '>>> jsp.stats.norm.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([0.0668072, 0.5      , 0.9937903], dtype=float32)',
 'jsp.stats.norm.isf': '>>> jsp.stats.norm.isf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                       'Array([ 0.67448974,  0.        , -0.67448974], dtype=float32)',
 'jsp.stats.norm.logcdf': '>>> jsp.stats.norm.logcdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([-2.7059443 , -0.6931472 , -0.00622903], dtype=float32)',
 'jsp.stats.norm.logpdf': '>>> jsp.stats.norm.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([-2.0439386, -0.9189385, -4.0439386], dtype=float32)',
 'jsp.stats.norm.logsf': '>>> jsp.stats.norm.logsf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([-0.06914346, -0.6931472 , -5.0816483 ], dtype=float32)',
 'jsp.stats.norm.pdf': '>>> jsp.stats.norm.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([0.12951757, 0.3989423 , 0.0175283 ], dtype=float32)',
 'jsp.stats.norm.ppf': '>>> jsp.stats.norm.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                       'Array([-0.67448974,  0.        ,  0.67448974], dtype=float32)',
 'jsp.stats.norm.sf': '>>> jsp.stats.norm.sf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([0.9331928 , 0.5       , 0.00620967], dtype=float32)',
 'jsp.stats.pareto.cdf': '>>> jsp.stats.pareto.cdf(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([-0., -0., -0.], dtype=float32)',
 'jsp.stats.pareto.logcdf': '>>> jsp.stats.pareto.logcdf(jnp.asarray([0.25, 0.5, 0.75]), '
                            'jnp.asarray([0.25, 0.5, 0.75]))\n'
                            'Array([-inf, -inf, -inf], dtype=float32)',
 'jsp.stats.pareto.logpdf': '>>> jsp.stats.pareto.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                            'jnp.asarray([0.25, 0.5, 0.75]))\n'
                            'Array([-inf, -inf, -inf], dtype=float32)',
 'jsp.stats.pareto.logsf': '>>> jsp.stats.pareto.logsf(jnp.asarray([0.25, 0.5, 0.75]), '
                           'jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([0., 0., 0.], dtype=float32)',
 'jsp.stats.pareto.pdf': '>>> jsp.stats.pareto.pdf(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([0., 0., 0.], dtype=float32)',
 'jsp.stats.pareto.ppf': '>>> jsp.stats.pareto.ppf(jnp.asarray([0.25, 0.5, 0.75]), '
                         'jnp.asarray([0.25, 0.5, 0.75]))\n'
                         'Array([3.1604934, 4.       , 6.3496037], dtype=float32)',
 'jsp.stats.pareto.sf': '>>> jsp.stats.pareto.sf(jnp.asarray([0.25, 0.5, 0.75]), '
                        'jnp.asarray([0.25, 0.5, 0.75]))\n'
                        'Array([1., 1., 1.], dtype=float32)',
 'jsp.stats.poisson.cdf': '>>> jsp.stats.poisson.cdf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0.7788008 , 0.60653067, 0.47236654], dtype=float32)',
 'jsp.stats.poisson.entropy': '>>> jsp.stats.poisson.entropy(jnp.asarray([0.25, 0.5, 0.75]))\n'
                              'Array([0.6175119 , 0.92763746, 1.1425105 ], dtype=float32)',
 'jsp.stats.poisson.logpmf': '>>> jsp.stats.poisson.logpmf(jnp.asarray([0.25, 0.5, 0.75]), '
                             'jnp.asarray([0.25, 0.5, 0.75]))\n'
                             'Array([-inf, -inf, -inf], dtype=float32)',
 'jsp.stats.poisson.pmf': '>>> jsp.stats.poisson.pmf(jnp.asarray([0.25, 0.5, 0.75]), '
                          'jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0., 0., 0.], dtype=float32)',
 'jsp.stats.t.logpdf': '>>> jsp.stats.t.logpdf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, '
                       '0.5, 0.75]))\n'
                       'Array([-1.677271 , -1.6146318, -1.695403 ], dtype=float32)',
 'jsp.stats.t.pdf': '>>> jsp.stats.t.pdf(jnp.asarray([0.25, 0.5, 0.75]), jnp.asarray([0.25, 0.5, '
                    '0.75]))\n'
                    'Array([0.18688329, 0.19896393, 0.18352525], dtype=float32)',
 'jsp.stats.uniform.cdf': '>>> jsp.stats.uniform.cdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0., 0., 1.], dtype=float32)',
 'jsp.stats.uniform.logpdf': '>>> jsp.stats.uniform.logpdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                             'Array([-inf,  -0., -inf], dtype=float32)',
 'jsp.stats.uniform.pdf': '>>> jsp.stats.uniform.pdf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                          'Array([0., 1., 0.], dtype=float32)',
 'jsp.stats.uniform.ppf': '>>> jsp.stats.uniform.ppf(jnp.asarray([0.25, 0.5, 0.75]))\n'
                          'Array([0.25, 0.5 , 0.75], dtype=float32)',
 'jsp.stats.vonmises.logpdf': '>>> jsp.stats.vonmises.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                              'jnp.asarray([0.25, 0.5, 0.75]))\n'
                              'Array([-1.6112133, -1.4606354, -1.4250798], dtype=float32)',
 'jsp.stats.vonmises.pdf': '>>> jsp.stats.vonmises.pdf(jnp.asarray([0.25, 0.5, 0.75]), '
                           'jnp.asarray([0.25, 0.5, 0.75]))\n'
                           'Array([0.19964524, 0.23208874, 0.24048926], dtype=float32)',
 'jsp.stats.wrapcauchy.logpdf': '>>> jsp.stats.wrapcauchy.logpdf(jnp.asarray([0.25, 0.5, 0.75]), '
                                'jnp.asarray([0.25, 0.5, 0.75]))\n'
                                'Array([-1.3543098, -1.1378193, -1.8987663], dtype=float32)',
 'jsp.stats.wrapcauchy.pdf': '>>> jsp.stats.wrapcauchy.pdf(jnp.asarray([0.25, 0.5, 0.75]), '
                             'jnp.asarray([0.25, 0.5, 0.75]))\n'
                             'Array([0.25812536, 0.3205172 , 0.14975327], dtype=float32)'}

# tjit, lax, random, nn: written as JAX code (tjit/_docs_jax.py)
JAX_EXAMPLES = {'jax.block_until_ready': '>>> jax.block_until_ready(jnp.asarray([-1.5, 0.0, 2.5]) * 2)\n'
                          'Array([-3.,  0.,  5.], dtype=float32)',
 'jax.checkpoint': '>>> jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0)\n'
                   'Array(0.36003944, dtype=float32, weak_type=True)',
 'jax.clear_caches': '>>> jax.clear_caches()',
 'jax.custom_gradient': '>>> jax.grad(jax.custom_gradient(lambda x: (x ** 2, lambda g: (3.0 * '
                        'g,))))(2.0)\n'
                        'Array(3., dtype=float32, weak_type=True)',
 'jax.default_backend': '>>> jax.default_backend() == jax.local_devices()[0].platform\nTrue',
 'jax.device_count': '>>> jax.device_count() >= jax.local_device_count() >= 1\nTrue',
 'jax.device_get': '>>> jax.device_get(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'array([-1.5,  0. ,  2.5], dtype=float32)',
 'jax.device_put': '>>> jax.device_put(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jax.empty_ref': '>>> jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32)).shape\n(2,)',
 'jax.eval_shape': '>>> jax.eval_shape(jnp.sin, jnp.ones((2, 3)))\n'
                   'ShapeDtypeStruct(shape=(2, 3), dtype=float32)',
 'jax.free_ref': '>>> jax.free_ref(jax.new_ref(1.0))',
 'jax.freeze': '>>> jax.freeze(jax.new_ref(jnp.asarray([1.0, 2.0])))\n'
               'Array([1., 2.], dtype=float32)',
 'jax.grad': '>>> jax.grad(jnp.sin)(1.0)\nArray(0.5403023, dtype=float32, weak_type=True)',
 'jax.hessian': '>>> jax.hessian(lambda x: jnp.sum(x ** 3))(jnp.asarray([1.0, 2.0]))\n'
                'Array([[ 6.,  0.],\n'
                '       [ 0., 12.]], dtype=float32)',
 'jax.jacfwd': '>>> jax.jacfwd(lambda x: x ** 2)(jnp.asarray([1.0, 2.0]))\n'
               'Array([[2., 0.],\n'
               '       [0., 4.]], dtype=float32)',
 'jax.jacobian': '>>> jax.jacobian(lambda x: x ** 2)(jnp.asarray([1.0, 2.0]))\n'
                 'Array([[2., 0.],\n'
                 '       [0., 4.]], dtype=float32)',
 'jax.jacrev': '>>> jax.jacrev(lambda x: x ** 2)(jnp.asarray([1.0, 2.0]))\n'
               'Array([[2., 0.],\n'
               '       [0., 4.]], dtype=float32)',
 'jax.jit': '>>> jax.jit(lambda x: jnp.sin(x) * 2)(jnp.asarray([-1.5, 0.0, 2.5]))\n'
            'Array([-1.99499  ,  0.       ,  1.1969444], dtype=float32)',
 'jax.jvp': '>>> jax.jvp(jnp.sin, (1.0,), (2.0,))\n'
            '(Array(0.841471, dtype=float32, weak_type=True), Array(1.0806046, dtype=float32, '
            'weak_type=True))',
 'jax.lax.abs': '>>> jax.lax.abs(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([1.5, 0. , 2.5], dtype=float32)',
 'jax.lax.acos': '>>> jax.lax.acos(jnp.asarray([0.25, 0.5, 0.75]))\n'
                 'Array([1.3181162, 1.0471976, 0.7227342], dtype=float32)',
 'jax.lax.acosh': '>>> jax.lax.acosh(jnp.asarray([1.5, 2.0, 4.5]))\n'
                  'Array([0.9624236, 1.316958 , 2.1846437], dtype=float32)',
 'jax.lax.add': '>>> jax.lax.add(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([0.5, 1. , 2. ], dtype=float32)',
 'jax.lax.all_gather': ">>> jax.vmap(lambda x: jax.lax.all_gather(x, 'i'), "
                       "axis_name='i')(jnp.asarray([1.0, 2.0, 4.0]))\n"
                       'Array([[1., 2., 4.],\n'
                       '       [1., 2., 4.],\n'
                       '       [1., 2., 4.]], dtype=float32)',
 'jax.lax.all_to_all': ">>> jax.vmap(lambda x: jax.lax.all_to_all(x, 'i', 0, 0), "
                       "axis_name='i')(jnp.arange(4.0).reshape(2, 2))\n"
                       'Array([[0., 2.],\n'
                       '       [1., 3.]], dtype=float32)',
 'jax.lax.approx_max_k': '>>> jax.lax.approx_max_k(jnp.asarray([2.0, 5.0, -1.0, 3.0]), 2)\n'
                         '(Array([5., 3.], dtype=float32), Array([1, 3], dtype=int32))',
 'jax.lax.approx_min_k': '>>> jax.lax.approx_min_k(jnp.asarray([2.0, 5.0, -1.0, 3.0]), 2)\n'
                         '(Array([-1.,  2.], dtype=float32), Array([2, 0], dtype=int32))',
 'jax.lax.argmax': '>>> jax.lax.argmax(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), 1, jnp.int32)\n'
                   'Array([1, 0], dtype=int32)',
 'jax.lax.argmin': '>>> jax.lax.argmin(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), 1, jnp.int32)\n'
                   'Array([0, 1], dtype=int32)',
 'jax.lax.asin': '>>> jax.lax.asin(jnp.asarray([0.25, 0.5, 0.75]))\n'
                 'Array([0.25268024, 0.5235988 , 0.84806216], dtype=float32)',
 'jax.lax.asinh': '>>> jax.lax.asinh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([-1.1947632,  0.       ,  1.6472311], dtype=float32)',
 'jax.lax.associative_scan': '>>> jax.lax.associative_scan(jax.lax.mul, jnp.asarray([0.5, 2.0, '
                             '4.5]))\n'
                             'Array([0.5, 1. , 4.5], dtype=float32)',
 'jax.lax.atan': '>>> jax.lax.atan(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-0.98279375,  0.        ,  1.19029   ], dtype=float32)',
 'jax.lax.atan2': '>>> jax.lax.atan2(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, '
                  '-0.5]))\n'
                  'Array([-0.64350116,  0.        ,  1.7681919 ], dtype=float32)',
 'jax.lax.atanh': '>>> jax.lax.atanh(jnp.asarray([0.25, 0.5, 0.75]))\n'
                  'Array([0.25541282, 0.54930615, 0.97295505], dtype=float32)',
 'jax.lax.axis_index': ">>> jax.vmap(lambda x: jax.lax.axis_index('i'), "
                       "axis_name='i')(jnp.asarray([1.0, 2.0, 4.0]))\n"
                       'Array([0, 1, 2], dtype=int32)',
 'jax.lax.axis_size': ">>> jax.vmap(lambda x: x * jax.lax.axis_size('i'), "
                      "axis_name='i')(jnp.asarray([1.0, 2.0, 4.0]))\n"
                      'Array([ 3.,  6., 12.], dtype=float32)',
 'jax.lax.batch_matmul': '>>> jax.lax.batch_matmul(jnp.stack([jnp.asarray([[1.0, 2.0], [3.0, '
                         '0.5]]), jnp.asarray([[1.0, 2.0], [3.0, 0.5]])]), jnp.ones((2, 2, 1)))\n'
                         'Array([[[3. ],\n'
                         '        [3.5]],\n'
                         '\n'
                         '       [[3. ],\n'
                         '        [3.5]]], dtype=float32)',
 'jax.lax.bessel_i0e': '>>> jax.lax.bessel_i0e(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([0.3674336 , 1.        , 0.27004644], dtype=float32)',
 'jax.lax.bessel_i1e': '>>> jax.lax.bessel_i1e(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([-0.21903938,  0.        ,  0.20658465], dtype=float32)',
 'jax.lax.betainc': '>>> jax.lax.betainc(jnp.asarray([1.0, 2.0, 0.5]), jnp.asarray([2.0, 2.0, '
                    '3.0]), jnp.asarray([0.25, 0.5, 0.75]))\n'
                    'Array([0.4375    , 0.5       , 0.99457604], dtype=float32)',
 'jax.lax.bitcast_convert_type': '>>> jax.lax.bitcast_convert_type(jnp.asarray([1.0, -2.0]), '
                                 'jnp.int32)\n'
                                 'Array([ 1065353216, -1073741824], dtype=int32)',
 'jax.lax.bitwise_and': '>>> jax.lax.bitwise_and(jnp.asarray([6, -8, 5]), jnp.asarray([3, 7, 4]))\n'
                        'Array([2, 0, 4], dtype=int32)',
 'jax.lax.bitwise_not': '>>> jax.lax.bitwise_not(jnp.asarray([6, -8, 5]))\n'
                        'Array([-7,  7, -6], dtype=int32)',
 'jax.lax.bitwise_or': '>>> jax.lax.bitwise_or(jnp.asarray([6, -8, 5]), jnp.asarray([3, 7, 4]))\n'
                       'Array([ 7, -1,  5], dtype=int32)',
 'jax.lax.bitwise_xor': '>>> jax.lax.bitwise_xor(jnp.asarray([6, -8, 5]), jnp.asarray([3, 7, 4]))\n'
                        'Array([ 5, -1,  1], dtype=int32)',
 'jax.lax.broadcast': '>>> jax.lax.broadcast(jnp.asarray([1.0, 2.0]), (2,))\n'
                      'Array([[1., 2.],\n'
                      '       [1., 2.]], dtype=float32)',
 'jax.lax.broadcast_in_dim': '>>> jax.lax.broadcast_in_dim(jnp.asarray([1.0, 2.0]), (2, 3), (0,))\n'
                             'Array([[1., 1., 1.],\n'
                             '       [2., 2., 2.]], dtype=float32)',
 'jax.lax.broadcast_like': '>>> jax.lax.broadcast_like(jnp.asarray([1.0, 2.0]), jnp.zeros((3, '
                           '2)))\n'
                           'Array([[1., 2.],\n'
                           '       [1., 2.],\n'
                           '       [1., 2.]], dtype=float32)',
 'jax.lax.broadcast_shapes': '>>> jax.lax.broadcast_shapes((3, 1), (4,))\n(3, 4)',
 'jax.lax.cbrt': '>>> jax.lax.cbrt(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-1.1447142,  0.       ,  1.3572087], dtype=float32)',
 'jax.lax.ceil': '>>> jax.lax.ceil(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-1.,  0.,  3.], dtype=float32)',
 'jax.lax.clamp': '>>> jax.lax.clamp(0.0, jnp.asarray([-1.5, 0.0, 2.5]), 1.0)\n'
                  'Array([0., 0., 1.], dtype=float32)',
 'jax.lax.clz': '>>> jax.lax.clz(jnp.asarray([6, -8, 5]))\nArray([29,  0, 29], dtype=int32)',
 'jax.lax.collapse': '>>> jax.lax.collapse(jnp.ones((2, 3, 4)), 0, 2).shape\n(6, 4)',
 'jax.lax.complex': '>>> jax.lax.complex(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, '
                    '-0.5]))\n'
                    'Array([-1.5+2.j ,  0. +1.j ,  2.5-0.5j], dtype=complex64)',
 'jax.lax.concatenate': '>>> jax.lax.concatenate([jnp.asarray([1.0, 2.0]), jnp.asarray([3.0])], '
                        '0)\n'
                        'Array([1., 2., 3.], dtype=float32)',
 'jax.lax.cond': '>>> jax.lax.cond(True, jnp.sin, jnp.cos, jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-0.997495 ,  0.       ,  0.5984722], dtype=float32)',
 'jax.lax.conj': '>>> jax.lax.conj(jnp.asarray([1 + 2j, 3 - 1j]))\n'
                 'Array([1.-2.j, 3.+1.j], dtype=complex64)',
 'jax.lax.conv': '>>> jax.lax.conv(jnp.arange(5.0).reshape(1, 1, 5), jnp.asarray([1.0, '
                 "2.0]).reshape(1, 1, 2), (1,), 'VALID')\n"
                 'Array([[[ 2.,  5.,  8., 11.]]], dtype=float32)',
 'jax.lax.conv_dimension_numbers': '>>> jax.lax.conv_dimension_numbers((1, 5, 1), (2, 1, 1), '
                                   "('NWC', 'WIO', 'NWC'))\n"
                                   'ConvDimensionNumbers(lhs_spec=(0, 2, 1), rhs_spec=(2, 1, 0), '
                                   'out_spec=(0, 2, 1))',
 'jax.lax.conv_general_dilated': '>>> jax.lax.conv_general_dilated(jnp.arange(5.0).reshape(1, 1, '
                                 "5), jnp.asarray([1.0, 2.0]).reshape(1, 1, 2), (1,), 'SAME', "
                                 'rhs_dilation=(2,))\n'
                                 'Array([[[ 2.,  4.,  7., 10.,  3.]]], dtype=float32)',
 'jax.lax.conv_general_permutations': ">>> jax.lax.conv_general_permutations(('NWC', 'WIO', "
                                      "'NWC'))\n"
                                      '((0, 2, 1), (2, 1, 0), (0, 2, 1))',
 'jax.lax.conv_general_shape_tuple': '>>> jax.lax.conv_general_shape_tuple((1, 1, 5), (1, 1, 2), '
                                     "(1,), 'VALID', None)\n"
                                     '(1, 1, 4)',
 'jax.lax.conv_transpose': '>>> jax.lax.conv_transpose(jnp.asarray([1.0, 2.0, 3.0]).reshape(1, 3, '
                           "1), jnp.asarray([1.0, 2.0]).reshape(2, 1, 1), (2,), 'VALID')\n"
                           'Array([[[2.],\n'
                           '        [1.],\n'
                           '        [4.],\n'
                           '        [2.],\n'
                           '        [6.],\n'
                           '        [3.]]], dtype=float32)',
 'jax.lax.conv_transpose_shape_tuple': '>>> jax.lax.conv_transpose_shape_tuple((1, 3, 1), (2, 1, '
                                       "1), (2,), 'VALID', ('NWC', 'WIO', 'NWC'))\n"
                                       '(1, 6, 1)',
 'jax.lax.conv_with_general_padding': '>>> '
                                      'jax.lax.conv_with_general_padding(jnp.arange(5.0).reshape(1, '
                                      '1, 5), jnp.asarray([1.0, 2.0]).reshape(1, 1, 2), (1,), [(1, '
                                      '1)], None, None)\n'
                                      'Array([[[ 0.,  2.,  5.,  8., 11.,  4.]]], dtype=float32)',
 'jax.lax.convert_element_type': '>>> jax.lax.convert_element_type(jnp.asarray([-1.5, 0.0, 2.5]), '
                                 'jnp.int32)\n'
                                 'Array([-1,  0,  2], dtype=int32)',
 'jax.lax.cos': '>>> jax.lax.cos(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ 0.0707372,  1.       , -0.8011436], dtype=float32)',
 'jax.lax.cosh': '>>> jax.lax.cosh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([2.3524096, 1.       , 6.13229  ], dtype=float32)',
 'jax.lax.cumlogsumexp': '>>> jax.lax.cumlogsumexp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                         'Array([-1.5       ,  0.20141327,  2.5956745 ], dtype=float32)',
 'jax.lax.cummax': '>>> jax.lax.cummax(jnp.asarray([2.0, 1.0, -0.5]), reverse=True)\n'
                   'Array([ 2. ,  1. , -0.5], dtype=float32)',
 'jax.lax.cummin': '>>> jax.lax.cummin(jnp.asarray([2.0, 1.0, -0.5]))\n'
                   'Array([ 2. ,  1. , -0.5], dtype=float32)',
 'jax.lax.cumprod': '>>> jax.lax.cumprod(jnp.asarray([0.5, 2.0, 4.5]))\n'
                    'Array([0.5, 1. , 4.5], dtype=float32)',
 'jax.lax.cumsum': '>>> jax.lax.cumsum(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([-1.5, -1.5,  1. ], dtype=float32)',
 'jax.lax.custom_linear_solve': '>>> jax.lax.custom_linear_solve(lambda x: jnp.asarray([[2.0, '
                                '1.0], [1.0, 3.0]]) @ x, jnp.asarray([1.0, 2.0]), lambda matvec, '
                                'b: jnp.linalg.solve(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]), b), '
                                'symmetric=True)\n'
                                'Array([0.19999999, 0.6       ], dtype=float32)',
 'jax.lax.custom_root': '>>> jax.lax.custom_root(lambda x: x ** 2 - 2.0, 1.0, lambda f, x0: '
                        'jax.lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0), lambda g, '
                        'y: y / g(1.0))\n'
                        'Array(1.4142135, dtype=float32, weak_type=True)',
 'jax.lax.digamma': '>>> jax.lax.digamma(jnp.asarray([0.5, 2.0, 4.5]))\n'
                    'Array([-1.96351   ,  0.42278433,  1.388871  ], dtype=float32)',
 'jax.lax.div': '>>> jax.lax.div(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([-0.75,  0.  , -5.  ], dtype=float32)',
 'jax.lax.dot': '>>> jax.lax.dot(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), jnp.asarray([1.0, -1.0]))\n'
                'Array([-1. ,  2.5], dtype=float32)',
 'jax.lax.dot_general': '>>> jax.lax.dot_general(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), '
                        'jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), (((1,), (1,)), ((), ())))\n'
                        'Array([[5.  , 4.  ],\n'
                        '       [4.  , 9.25]], dtype=float32)',
 'jax.lax.dynamic_index_in_dim': '>>> jax.lax.dynamic_index_in_dim(jnp.arange(6.0).reshape(2, 3), '
                                 '1, axis=1, keepdims=False)\n'
                                 'Array([1., 4.], dtype=float32)',
 'jax.lax.dynamic_slice': '>>> jax.lax.dynamic_slice(jnp.arange(6.0).reshape(2, 3), (0, 1), (2, '
                          '2))\n'
                          'Array([[1., 2.],\n'
                          '       [4., 5.]], dtype=float32)',
 'jax.lax.dynamic_slice_in_dim': '>>> jax.lax.dynamic_slice_in_dim(jnp.arange(6.0), 2, 3)\n'
                                 'Array([2., 3., 4.], dtype=float32)',
 'jax.lax.dynamic_update_index_in_dim': '>>> '
                                        'jax.lax.dynamic_update_index_in_dim(jnp.arange(6.0).reshape(2, '
                                        '3), jnp.zeros(3), 0, 0)\n'
                                        'Array([[0., 0., 0.],\n'
                                        '       [3., 4., 5.]], dtype=float32)',
 'jax.lax.dynamic_update_slice': '>>> jax.lax.dynamic_update_slice(jnp.arange(6.0), '
                                 'jnp.asarray([9.0, 9.0]), (4,))\n'
                                 'Array([0., 1., 2., 3., 9., 9.], dtype=float32)',
 'jax.lax.dynamic_update_slice_in_dim': '>>> '
                                        'jax.lax.dynamic_update_slice_in_dim(jnp.arange(6.0).reshape(2, '
                                        '3), jnp.zeros((2, 1)), 2, axis=1)\n'
                                        'Array([[0., 1., 0.],\n'
                                        '       [3., 4., 0.]], dtype=float32)',
 'jax.lax.empty': '>>> jax.lax.empty((2, 3), jnp.float32).shape\n(2, 3)',
 'jax.lax.eq': '>>> jax.lax.eq(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([False, False, False], dtype=bool)',
 'jax.lax.erf': '>>> jax.lax.erf(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.96610516,  0.        ,  0.999593  ], dtype=float32)',
 'jax.lax.erf_inv': '>>> jax.lax.erf_inv(jnp.asarray([-0.5, 0.0, 0.75]))\n'
                    'Array([-0.47693628,  0.        ,  0.8134199 ], dtype=float32)',
 'jax.lax.erfc': '>>> jax.lax.erfc(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([1.9661051e+00, 1.0000000e+00, 4.0695202e-04], dtype=float32)',
 'jax.lax.exp': '>>> jax.lax.exp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ 0.22313015,  1.        , 12.182493  ], dtype=float32)',
 'jax.lax.exp2': '>>> jax.lax.exp2(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([0.35355338, 1.        , 5.656854  ], dtype=float32)',
 'jax.lax.expm1': '>>> jax.lax.expm1(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([-0.77686983,  0.        , 11.182494  ], dtype=float32)',
 'jax.lax.fft': '>>> jax.lax.fft(jnp.asarray([1.0, 2.0, 0.0, -1.0]).astype(jnp.complex64), '
                'jax.lax.FftType.FFT, (4,))\n'
                'Array([2.+0.j, 1.-3.j, 0.+0.j, 1.+3.j], dtype=complex64)',
 'jax.lax.floor': '>>> jax.lax.floor(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                  'Array([-2.,  0.,  2.], dtype=float32)',
 'jax.lax.fori_loop': '>>> jax.lax.fori_loop(0, 5, lambda i, c: c * 2 + i, 1.0)\n'
                      'Array(58., dtype=float32, weak_type=True)',
 'jax.lax.full': '>>> jax.lax.full((2, 2), 3.0)\n'
                 'Array([[3., 3.],\n'
                 '       [3., 3.]], dtype=float32, weak_type=True)',
 'jax.lax.full_like': '>>> jax.lax.full_like(jnp.arange(6.0).reshape(2, 3), 7.0)\n'
                      'Array([[7., 7., 7.],\n'
                      '       [7., 7., 7.]], dtype=float32)',
 'jax.lax.gather': '>>> jax.lax.gather(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                   'jax.lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), '
                   'start_index_map=(0,)), (1,))\n'
                   'Array([4., 1., 4.], dtype=float32)',
 'jax.lax.ge': '>>> jax.lax.ge(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([False, False,  True], dtype=bool)',
 'jax.lax.gt': '>>> jax.lax.gt(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([False, False,  True], dtype=bool)',
 'jax.lax.igamma': '>>> jax.lax.igamma(jnp.asarray([0.5, 2.0, 4.5]), jnp.asarray([1.0, 1.5, '
                   '3.0]))\n'
                   'Array([0.8427008, 0.4421746, 0.2600817], dtype=float32)',
 'jax.lax.igamma_grad_a': '>>> jax.lax.igamma_grad_a(jnp.asarray([0.5, 2.0, 4.5]), '
                          'jnp.asarray([1.0, 1.5, 3.0]))\n'
                          'Array([-0.38983727, -0.31348863, -0.16838655], dtype=float32)',
 'jax.lax.igammac': '>>> jax.lax.igammac(jnp.asarray([0.5, 2.0, 4.5]), jnp.asarray([1.0, 1.5, '
                    '3.0]))\n'
                    'Array([0.1572992, 0.5578254, 0.7399183], dtype=float32)',
 'jax.lax.imag': '>>> jax.lax.imag(jnp.asarray([1 + 2j, 3 - 1j]))\n'
                 'Array([ 2., -1.], dtype=float32)',
 'jax.lax.index_in_dim': '>>> jax.lax.index_in_dim(jnp.arange(6.0).reshape(2, 3), 1, axis=0)\n'
                         'Array([[3., 4., 5.]], dtype=float32)',
 'jax.lax.index_take': '>>> jax.lax.index_take(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]), '
                       '(jnp.asarray([0, 1]), jnp.asarray([1, -1])), (0, 1))\n'
                       'Array([2., 4.], dtype=float32)',
 'jax.lax.integer_pow': '>>> jax.lax.integer_pow(jnp.asarray([-1.5, 0.0, 2.5]), 3)\n'
                        'Array([-3.375,  0.   , 15.625], dtype=float32)',
 'jax.lax.iota': '>>> jax.lax.iota(jnp.int32, 4)\nArray([0, 1, 2, 3], dtype=int32)',
 'jax.lax.is_finite': '>>> jax.lax.is_finite(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([ True,  True,  True], dtype=bool)',
 'jax.lax.le': '>>> jax.lax.le(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([ True,  True, False], dtype=bool)',
 'jax.lax.lgamma': '>>> jax.lax.lgamma(jnp.asarray([0.5, 2.0, 4.5]))\n'
                   'Array([0.5723649, 0.       , 2.4537365], dtype=float32)',
 'jax.lax.log': '>>> jax.lax.log(jnp.asarray([0.5, 2.0, 4.5]))\n'
                'Array([-0.6931472,  0.6931472,  1.5040774], dtype=float32)',
 'jax.lax.log1p': '>>> jax.lax.log1p(jnp.asarray([0.25, 0.5, 0.75]))\n'
                  'Array([0.22314356, 0.40546513, 0.5596158 ], dtype=float32)',
 'jax.lax.logistic': '>>> jax.lax.logistic(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([0.18242553, 0.5       , 0.9241418 ], dtype=float32)',
 'jax.lax.lt': '>>> jax.lax.lt(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([ True,  True, False], dtype=bool)',
 'jax.lax.map': '>>> jax.lax.map(jnp.sum, jnp.arange(6.0).reshape(2, 3))\n'
                'Array([ 3., 12.], dtype=float32)',
 'jax.lax.max': '>>> jax.lax.max(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([2. , 1. , 2.5], dtype=float32)',
 'jax.lax.min': '>>> jax.lax.min(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([-1.5,  0. , -0.5], dtype=float32)',
 'jax.lax.mul': '>>> jax.lax.mul(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([-3.  ,  0.  , -1.25], dtype=float32)',
 'jax.lax.mulhi': '>>> jax.lax.mulhi(jnp.asarray([2 ** 30, -7], jnp.int32), jnp.asarray([8, 2 ** '
                  '31 - 1], jnp.int32))\n'
                  'Array([ 2, -4], dtype=int32)',
 'jax.lax.ne': '>>> jax.lax.ne(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
               'Array([ True,  True,  True], dtype=bool)',
 'jax.lax.neg': '>>> jax.lax.neg(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([ 1.5, -0. , -2.5], dtype=float32)',
 'jax.lax.nextafter': '>>> jax.lax.nextafter(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, '
                      '-0.5]))\n'
                      'Array([-1.4999999e+00,  1.4012985e-45,  2.4999998e+00], dtype=float32)',
 'jax.lax.optimization_barrier': '>>> jax.lax.optimization_barrier((jnp.asarray([1.0, 2.0]), 3))\n'
                                 '(Array([1., 2.], dtype=float32), Array(3, dtype=int32, '
                                 'weak_type=True))',
 'jax.lax.pad': '>>> jax.lax.pad(jnp.asarray([1.0, 2.0, 3.0]), 0.0, [(1, 2, 1)])\n'
                'Array([0., 1., 0., 2., 0., 3., 0., 0.], dtype=float32)',
 'jax.lax.padtype_to_pads': ">>> jax.lax.padtype_to_pads((5,), (3,), (2,), 'SAME')\n[(1, 1)]",
 'jax.lax.platform_dependent': '>>> jax.lax.platform_dependent(4.0, tpu=jnp.negative, '
                               'default=jnp.sqrt)\n'
                               'Array(2., dtype=float32, weak_type=True)',
 'jax.lax.pmax': ">>> jax.vmap(lambda x: jax.lax.pmax(x, 'i'), axis_name='i')(jnp.asarray([1.0, "
                 '2.0, 4.0]))\n'
                 'Array([4., 4., 4.], dtype=float32)',
 'jax.lax.pmean': ">>> jax.vmap(lambda x: jax.lax.pmean(x, 'i'), axis_name='i')(jnp.asarray([1.0, "
                  '2.0, 4.0]))\n'
                  'Array([2.3333333, 2.3333333, 2.3333333], dtype=float32)',
 'jax.lax.pmin': ">>> jax.vmap(lambda x: jax.lax.pmin(x, 'i'), axis_name='i')(jnp.asarray([1.0, "
                 '2.0, 4.0]))\n'
                 'Array([1., 1., 1.], dtype=float32)',
 'jax.lax.polygamma': '>>> jax.lax.polygamma(jnp.asarray([1.0, 1.0, 2.0]), jnp.asarray([0.5, 2.0, '
                      '4.5]))\n'
                      'Array([ 4.934802  ,  0.64493406, -0.06155682], dtype=float32)',
 'jax.lax.population_count': '>>> jax.lax.population_count(jnp.asarray([6, -8, 5]))\n'
                             'Array([ 2, 29,  2], dtype=int32)',
 'jax.lax.pow': '>>> jax.lax.pow(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, 0.5]))\n'
                'Array([2.25     , 0.       , 1.5811388], dtype=float32)',
 'jax.lax.ppermute': ">>> jax.vmap(lambda x: jax.lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 0)]), "
                     "axis_name='i')(jnp.asarray([1.0, 2.0, 4.0]))\n"
                     'Array([4., 1., 2.], dtype=float32)',
 'jax.lax.psum': ">>> jax.vmap(lambda x: jax.lax.psum(x, 'i'), axis_name='i')(jnp.asarray([1.0, "
                 '2.0, 4.0]))\n'
                 'Array([7., 7., 7.], dtype=float32)',
 'jax.lax.psum_scatter': ">>> jax.vmap(lambda x: jax.lax.psum_scatter(x, 'i'), "
                         "axis_name='i')(jnp.arange(4.0).reshape(2, 2))\n"
                         'Array([2., 4.], dtype=float32)',
 'jax.lax.real': '>>> jax.lax.real(jnp.asarray([1 + 2j, 3 - 1j]))\nArray([1., 3.], dtype=float32)',
 'jax.lax.reduce': '>>> jax.lax.reduce(jnp.arange(6.0).reshape(2, 3), 0.0, jax.lax.add, (1,))\n'
                   'Array([ 3., 12.], dtype=float32)',
 'jax.lax.reduce_and': '>>> jax.lax.reduce_and(jnp.asarray([[True, False], [True, True]]), (1,))\n'
                       'Array([False,  True], dtype=bool)',
 'jax.lax.reduce_max': '>>> jax.lax.reduce_max(jnp.arange(6.0).reshape(2, 3), (1,))\n'
                       'Array([2., 5.], dtype=float32)',
 'jax.lax.reduce_min': '>>> jax.lax.reduce_min(jnp.arange(6.0).reshape(2, 3), (0,))\n'
                       'Array([0., 1., 2.], dtype=float32)',
 'jax.lax.reduce_or': '>>> jax.lax.reduce_or(jnp.asarray([[True, False], [False, False]]), (1,))\n'
                      'Array([ True, False], dtype=bool)',
 'jax.lax.reduce_precision': '>>> jax.lax.reduce_precision(jnp.asarray([1.0009765625, 3.14159, '
                             '1e-9]), 5, 10)\n'
                             'Array([1.0009766, 3.140625 , 0.       ], dtype=float32)',
 'jax.lax.reduce_prod': '>>> jax.lax.reduce_prod(jnp.arange(6.0).reshape(2, 3), (1,))\n'
                        'Array([ 0., 60.], dtype=float32)',
 'jax.lax.reduce_sum': '>>> jax.lax.reduce_sum(jnp.arange(6.0).reshape(2, 3), (0,))\n'
                       'Array([3., 5., 7.], dtype=float32)',
 'jax.lax.reduce_window': '>>> jax.lax.reduce_window(jnp.arange(6.0), 0.0, jax.lax.add, (3,), '
                          "(1,), 'VALID')\n"
                          'Array([ 3.,  6.,  9., 12.], dtype=float32)',
 'jax.lax.reduce_window_shape_tuple': '>>> jax.lax.reduce_window_shape_tuple((6,), (3,), (2,), '
                                      '[(0, 0)])\n'
                                      '(2,)',
 'jax.lax.reduce_xor': '>>> jax.lax.reduce_xor(jnp.asarray([6, -8, 5]), (0,))\n'
                       'Array(-5, dtype=int32)',
 'jax.lax.rem': '>>> jax.lax.rem(jnp.asarray([-5.5, 7.0, 2.5]), jnp.asarray([2.0, 3.0, -1.0]))\n'
                'Array([-1.5,  1. ,  0.5], dtype=float32)',
 'jax.lax.reshape': '>>> jax.lax.reshape(jnp.arange(6.0), (2, 3))\n'
                    'Array([[0., 1., 2.],\n'
                    '       [3., 4., 5.]], dtype=float32)',
 'jax.lax.rev': '>>> jax.lax.rev(jnp.arange(6.0).reshape(2, 3), (1,))\n'
                'Array([[2., 1., 0.],\n'
                '       [5., 4., 3.]], dtype=float32)',
 'jax.lax.round': '>>> jax.lax.round(jnp.asarray([-1.5, 0.5, 2.5]))\n'
                  'Array([-2.,  1.,  3.], dtype=float32)',
 'jax.lax.rsqrt': '>>> jax.lax.rsqrt(jnp.asarray([0.5, 2.0, 4.5]))\n'
                  'Array([1.4142135 , 0.70710677, 0.47140455], dtype=float32)',
 'jax.lax.scan': '>>> jax.lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.asarray([0.5, 2.0, '
                 '4.5]))\n'
                 '(Array(7., dtype=float32), Array([ 0.  ,  1.  , 11.25], dtype=float32))',
 'jax.lax.scatter': '>>> jax.lax.scatter(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                    'jnp.asarray([1.0, 2.0, 3.0]), '
                    'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                    'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                    'Array([0., 2., 2., 3., 3., 5.], dtype=float32)',
 'jax.lax.scatter_add': '>>> jax.lax.scatter_add(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                        'jnp.asarray([1.0, 2.0, 3.0]), '
                        'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                        'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                        'Array([0., 3., 2., 3., 8., 5.], dtype=float32)',
 'jax.lax.scatter_max': '>>> jax.lax.scatter_max(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                        'jnp.asarray([1.0, 2.0, 3.0]), '
                        'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                        'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                        'Array([0., 2., 2., 3., 4., 5.], dtype=float32)',
 'jax.lax.scatter_min': '>>> jax.lax.scatter_min(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                        'jnp.asarray([1.0, 2.0, 3.0]), '
                        'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                        'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                        'Array([0., 1., 2., 3., 1., 5.], dtype=float32)',
 'jax.lax.scatter_mul': '>>> jax.lax.scatter_mul(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                        'jnp.asarray([1.0, 2.0, 3.0]), '
                        'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                        'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                        'Array([ 0.,  2.,  2.,  3., 12.,  5.], dtype=float32)',
 'jax.lax.scatter_sub': '>>> jax.lax.scatter_sub(jnp.arange(6.0), jnp.asarray([[4], [1], [4]]), '
                        'jnp.asarray([1.0, 2.0, 3.0]), '
                        'jax.lax.ScatterDimensionNumbers(update_window_dims=(), '
                        'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))\n'
                        'Array([ 0., -1.,  2.,  3.,  0.,  5.], dtype=float32)',
 'jax.lax.select': '>>> jax.lax.select(jnp.asarray([True, False, True]), jnp.asarray([-1.5, 0.0, '
                   '2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                   'Array([-1.5,  1. ,  2.5], dtype=float32)',
 'jax.lax.select_and_gather_add': '>>> jax.lax.select_and_gather_add(jnp.asarray([10.0, 20.0, '
                                  '30.0, 40.0]), jnp.asarray([1.0, 3.0, 2.0, 5.0]), jax.lax.ge, '
                                  "(2,), (2,), 'VALID')\n"
                                  'Array([20., 40.], dtype=float32)',
 'jax.lax.select_and_scatter_add': '>>> jax.lax.select_and_scatter_add(jnp.asarray([10.0, 20.0]), '
                                   'jnp.asarray([1.0, 3.0, 2.0, 5.0]), jax.lax.ge, (2,), (2,), '
                                   "'VALID')\n"
                                   'Array([ 0., 10.,  0., 20.], dtype=float32)',
 'jax.lax.select_n': '>>> jax.lax.select_n(jnp.asarray([0, 1, 2]), jnp.asarray([-1.5, 0.0, 2.5]), '
                     'jnp.asarray([2.0, 1.0, -0.5]), jnp.asarray([0.5, 2.0, 4.5]))\n'
                     'Array([-1.5,  1. ,  4.5], dtype=float32)',
 'jax.lax.shift_left': '>>> jax.lax.shift_left(jnp.asarray([6, -8, 5]), jnp.asarray([1, 2, 1]))\n'
                       'Array([ 12, -32,  10], dtype=int32)',
 'jax.lax.shift_right_arithmetic': '>>> jax.lax.shift_right_arithmetic(jnp.asarray([6, -8, 5]), '
                                   'jnp.asarray([1, 2, 1]))\n'
                                   'Array([ 3, -2,  2], dtype=int32)',
 'jax.lax.shift_right_logical': '>>> jax.lax.shift_right_logical(jnp.asarray([6, -8, 5]), '
                                'jnp.asarray([1, 2, 1]))\n'
                                'Array([         3, 1073741822,          2], dtype=int32)',
 'jax.lax.sign': '>>> jax.lax.sign(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-1.,  0.,  1.], dtype=float32)',
 'jax.lax.sin': '>>> jax.lax.sin(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.997495 ,  0.       ,  0.5984722], dtype=float32)',
 'jax.lax.sinh': '>>> jax.lax.sinh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-2.1292794,  0.       ,  6.0502043], dtype=float32)',
 'jax.lax.slice': '>>> jax.lax.slice(jnp.arange(6.0), (1,), (5,), (2,))\n'
                  'Array([1., 3.], dtype=float32)',
 'jax.lax.slice_in_dim': '>>> jax.lax.slice_in_dim(jnp.arange(6.0).reshape(2, 3), 1, 3, axis=1)\n'
                         'Array([[1., 2.],\n'
                         '       [4., 5.]], dtype=float32)',
 'jax.lax.sort': '>>> jax.lax.sort(jnp.asarray([2.0, 1.0, -0.5]))\n'
                 'Array([-0.5,  1. ,  2. ], dtype=float32)',
 'jax.lax.sort_key_val': '>>> jax.lax.sort_key_val(jnp.asarray([2.0, 1.0, -0.5]), jnp.asarray([0, '
                         '1, 2]))\n'
                         '(Array([-0.5,  1. ,  2. ], dtype=float32), Array([2, 1, 0], '
                         'dtype=int32))',
 'jax.lax.split': '>>> jax.lax.split(jnp.arange(5.0), [2, 3])\n'
                  '[Array([0., 1.], dtype=float32), Array([2., 3., 4.], dtype=float32)]',
 'jax.lax.sqrt': '>>> jax.lax.sqrt(jnp.asarray([0.5, 2.0, 4.5]))\n'
                 'Array([0.70710677, 1.4142135 , 2.1213202 ], dtype=float32)',
 'jax.lax.stack': '>>> jax.lax.stack([jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0])])\n'
                  'Array([[1., 2.],\n'
                  '       [3., 4.]], dtype=float32)',
 'jax.lax.stop_gradient': '>>> jax.grad(lambda x: x * jax.lax.stop_gradient(x))(3.0)\n'
                          'Array(3., dtype=float32, weak_type=True)',
 'jax.lax.sub': '>>> jax.lax.sub(jnp.asarray([-1.5, 0.0, 2.5]), jnp.asarray([2.0, 1.0, -0.5]))\n'
                'Array([-3.5, -1. ,  3. ], dtype=float32)',
 'jax.lax.switch': '>>> jax.lax.switch(2, [jnp.sin, jnp.cos, jnp.tanh], jnp.asarray([-1.5, 0.0, '
                   '2.5]))\n'
                   'Array([-0.9051482,  0.       ,  0.9866143], dtype=float32)',
 'jax.lax.tan': '>>> jax.lax.tan(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-14.10142  ,   0.       ,  -0.7470223], dtype=float32)',
 'jax.lax.tanh': '>>> jax.lax.tanh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-0.9051482,  0.       ,  0.9866143], dtype=float32)',
 'jax.lax.tile': '>>> jax.lax.tile(jnp.asarray([1.0, 2.0]), (2,))\n'
                 'Array([1., 2., 1., 2.], dtype=float32)',
 'jax.lax.top_k': '>>> jax.lax.top_k(jnp.asarray([2.0, 5.0, -1.0, 3.0]), 2)\n'
                  '(Array([5., 3.], dtype=float32), Array([1, 3], dtype=int32))',
 'jax.lax.unstack': '>>> jax.lax.unstack(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]))\n'
                    '(Array([1., 2.], dtype=float32), Array([3. , 0.5], dtype=float32))',
 'jax.lax.while_loop': '>>> jax.lax.while_loop(lambda c: c < 100, lambda c: c * 3, 1)\n'
                       'Array(243, dtype=int32, weak_type=True)',
 'jax.lax.with_sharding_constraint': '>>> jax.lax.with_sharding_constraint(jnp.asarray([1.0, '
                                     "2.0]), jax.NamedSharding(jax.make_mesh((1,), ('i',)), "
                                     "jax.P('i')))\n"
                                     'Array([1., 2.], dtype=float32)',
 'jax.lax.zeta': '>>> jax.lax.zeta(jnp.asarray([2.0, 3.0, 4.5]), jnp.asarray([0.5, 2.0, 4.5]))\n'
                 'Array([4.9348021e+00, 2.0205690e-01, 2.1460121e-03], dtype=float32)',
 'jax.linear_transpose': '>>> jax.linear_transpose(lambda x: jnp.asarray([[1.0, 2.0], [3.0, 4.0]]) '
                         '@ x, jnp.zeros(2))(jnp.asarray([1.0, 2.0]))\n'
                         '(Array([ 7., 10.], dtype=float32),)',
 'jax.linearize': '>>> jax.linearize(jnp.sin, 1.0)[1](2.0)\n'
                  'Array(1.0806046, dtype=float32, weak_type=True)',
 'jax.local_device_count': '>>> jax.local_device_count() == len(jax.local_devices())\nTrue',
 'jax.local_devices': '>>> jax.local_devices()[0].id\n0',
 'jax.make_array_from_process_local_data': '>>> '
                                           'jax.make_array_from_process_local_data(jax.sharding.NamedSharding(jax.make_mesh((1,), '
                                           "('i',)), jax.sharding.P('i')), jnp.asarray([-1.5, 0.0, "
                                           '2.5])).shape\n'
                                           '(3,)',
 'jax.make_jaxpr': '>>> print(jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0))\n'
                   '{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }',
 'jax.make_mesh': ">>> jax.make_mesh((1,), ('i',))\n"
                  "Mesh(axis_sizes=(1,), axis_names=('i',), axis_types=(Explicit,))",
 'jax.new_ref': '>>> jax.new_ref(jnp.asarray([1.0, 2.0]))\nRef([1., 2.], dtype=float32)',
 'jax.nn.celu': '>>> jax.nn.celu(jnp.asarray([-1.5, 0.0, 2.5]), alpha=2.0)\n'
                'Array([-1.0552669,  0.       ,  2.5      ], dtype=float32)',
 'jax.nn.dot_product_attention': '>>> jax.nn.dot_product_attention(jnp.asarray([[[1.0, 0.0]], '
                                 '[[0.0, 2.0]]]), jnp.asarray([[[1.0, 0.0]], [[0.0, 1.0]]]), '
                                 'jnp.asarray([[[1.0, 2.0]], [[3.0, 4.0]]]), is_causal=True)\n'
                                 'Array([[[1.       , 2.       ]],\n'
                                 '\n'
                                 '       [[2.6088595, 3.6088595]]], dtype=float32)',
 'jax.nn.elu': '>>> jax.nn.elu(jnp.asarray([-1.5, 0.0, 2.5]))\n'
               'Array([-0.77686983,  0.        ,  2.5       ], dtype=float32)',
 'jax.nn.gelu': '>>> jax.nn.gelu(jnp.asarray([-1.5, 0.0, 2.5])), jax.nn.gelu(jnp.asarray([-1.5, '
                '0.0, 2.5]), approximate=False)\n'
                '(Array([-0.10042842,  0.        ,  2.4849157 ], dtype=float32), '
                'Array([-0.10021081,  0.        ,  2.4844759 ], dtype=float32))',
 'jax.nn.glu': '>>> jax.nn.glu(jnp.asarray([1.0, -2.0, 0.5, 3.0]))\n'
               'Array([ 0.62245935, -1.9051483 ], dtype=float32)',
 'jax.nn.hard_sigmoid': '>>> jax.nn.hard_sigmoid(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                        'Array([0.25     , 0.5      , 0.9166667], dtype=float32)',
 'jax.nn.hard_silu': '>>> jax.nn.hard_silu(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([-0.375    ,  0.       ,  2.2916667], dtype=float32)',
 'jax.nn.hard_swish': '>>> jax.nn.hard_swish(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([-0.375    ,  0.       ,  2.2916667], dtype=float32)',
 'jax.nn.hard_tanh': '>>> jax.nn.hard_tanh(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([-1.,  0.,  1.], dtype=float32)',
 'jax.nn.identity': '>>> jax.nn.identity(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([-1.5,  0. ,  2.5], dtype=float32)',
 'jax.nn.initializers.compute_fans': '>>> jax.nn.initializers.compute_fans((3, 3, 4, 8))\n'
                                     '(36.0, 72.0)',
 'jax.nn.initializers.constant': '>>> jax.nn.initializers.constant(0.5)(jax.random.key(0), (2, '
                                 '3))\n'
                                 'Array([[0.5, 0.5, 0.5],\n'
                                 '       [0.5, 0.5, 0.5]], dtype=float32)',
 'jax.nn.initializers.delta_orthogonal': '>>> '
                                         'jax.nn.initializers.delta_orthogonal()(jax.random.key(0), '
                                         '(3, 2, 2))\n'
                                         'Array([[[ 0.        ,  0.        ],\n'
                                         '        [ 0.        ,  0.        ]],\n'
                                         '\n'
                                         '       [[ 0.9661029 ,  0.25815728],\n'
                                         '        [-0.25815728,  0.9661029 ]],\n'
                                         '\n'
                                         '       [[ 0.        ,  0.        ],\n'
                                         '        [ 0.        ,  0.        ]]], dtype=float32)',
 'jax.nn.initializers.glorot_normal': '>>> jax.nn.initializers.glorot_normal()(jax.random.key(0), '
                                      '(2, 2))\n'
                                      'Array([[ 1.1704051 ,  1.3784388 ],\n'
                                      '       [-0.33173826, -0.0603173 ]], dtype=float32)',
 'jax.nn.initializers.glorot_uniform': '>>> '
                                       'jax.nn.initializers.glorot_uniform()(jax.random.key(0), '
                                       '(2, 2))\n'
                                       'Array([[ 1.0965558 ,  1.1722765 ],\n'
                                       '       [-0.4108003 , -0.07674628]], dtype=float32)',
 'jax.nn.initializers.he_normal': '>>> jax.nn.initializers.he_normal()(jax.random.key(0), (2, 2))\n'
                                  'Array([[ 1.655203  ,  1.949407  ],\n'
                                  '       [-0.46914878, -0.08530155]], dtype=float32)',
 'jax.nn.initializers.he_uniform': '>>> jax.nn.initializers.he_uniform()(jax.random.key(0), (2, '
                                   '2))\n'
                                   'Array([[ 1.550764  ,  1.6578493 ],\n'
                                   '       [-0.5809593 , -0.10853563]], dtype=float32)',
 'jax.nn.initializers.kaiming_normal': '>>> '
                                       'jax.nn.initializers.kaiming_normal()(jax.random.key(0), '
                                       '(2, 2))\n'
                                       'Array([[ 1.655203  ,  1.949407  ],\n'
                                       '       [-0.46914878, -0.08530155]], dtype=float32)',
 'jax.nn.initializers.kaiming_uniform': '>>> '
                                        'jax.nn.initializers.kaiming_uniform()(jax.random.key(0), '
                                        '(2, 2))\n'
                                        'Array([[ 1.550764  ,  1.6578493 ],\n'
                                        '       [-0.5809593 , -0.10853563]], dtype=float32)',
 'jax.nn.initializers.lecun_normal': '>>> jax.nn.initializers.lecun_normal()(jax.random.key(0), '
                                     '(2, 2))\n'
                                     'Array([[ 1.1704051 ,  1.3784388 ],\n'
                                     '       [-0.33173826, -0.0603173 ]], dtype=float32)',
 'jax.nn.initializers.lecun_uniform': '>>> jax.nn.initializers.lecun_uniform()(jax.random.key(0), '
                                      '(2, 2))\n'
                                      'Array([[ 1.0965558 ,  1.1722765 ],\n'
                                      '       [-0.4108003 , -0.07674628]], dtype=float32)',
 'jax.nn.initializers.normal': '>>> jax.nn.initializers.normal()(jax.random.key(0), (2, 2))\n'
                               'Array([[ 0.01622642,  0.02025265],\n'
                               '       [-0.00433594, -0.00078617]], dtype=float32)',
 'jax.nn.initializers.ones': '>>> jax.nn.initializers.ones(jax.random.key(0), (2, 3))\n'
                             'Array([[1., 1., 1.],\n'
                             '       [1., 1., 1.]], dtype=float32)',
 'jax.nn.initializers.orthogonal': '>>> jax.nn.initializers.orthogonal()(jax.random.key(0), (2, '
                                   '2))\n'
                                   'Array([[ 0.9661029 ,  0.25815728],\n'
                                   '       [-0.25815728,  0.9661029 ]], dtype=float32)',
 'jax.nn.initializers.truncated_normal': '>>> '
                                         'jax.nn.initializers.truncated_normal()(jax.random.key(0), '
                                         '(2, 2))\n'
                                         'Array([[ 0.01455959,  0.01714748],\n'
                                         '       [-0.00412675, -0.00075033]], dtype=float32)',
 'jax.nn.initializers.uniform': '>>> jax.nn.initializers.uniform()(jax.random.key(0), (2, 2))\n'
                                'Array([[0.00947667, 0.0097858 ],\n'
                                '       [0.00332291, 0.00468668]], dtype=float32)',
 'jax.nn.initializers.variance_scaling': ">>> jax.nn.initializers.variance_scaling(2.0, 'fan_in', "
                                         "'uniform')(jax.random.key(0), (2, 2))\n"
                                         'Array([[ 1.550764  ,  1.6578493 ],\n'
                                         '       [-0.5809593 , -0.10853563]], dtype=float32)',
 'jax.nn.initializers.xavier_normal': '>>> jax.nn.initializers.xavier_normal()(jax.random.key(0), '
                                      '(2, 2))\n'
                                      'Array([[ 1.1704051 ,  1.3784388 ],\n'
                                      '       [-0.33173826, -0.0603173 ]], dtype=float32)',
 'jax.nn.initializers.xavier_uniform': '>>> '
                                       'jax.nn.initializers.xavier_uniform()(jax.random.key(0), '
                                       '(2, 2))\n'
                                       'Array([[ 1.0965558 ,  1.1722765 ],\n'
                                       '       [-0.4108003 , -0.07674628]], dtype=float32)',
 'jax.nn.initializers.zeros': '>>> jax.nn.initializers.zeros(jax.random.key(0), (2, 3))\n'
                              'Array([[0., 0., 0.],\n'
                              '       [0., 0., 0.]], dtype=float32)',
 'jax.nn.leaky_relu': '>>> jax.nn.leaky_relu(jnp.asarray([-1.5, 0.0, 2.5]), negative_slope=0.1)\n'
                      'Array([-0.15,  0.  ,  2.5 ], dtype=float32)',
 'jax.nn.log1mexp': '>>> jax.nn.log1mexp(jnp.asarray([0.25, 0.5, 0.75]))\n'
                    'Array([-1.5086915 , -0.93275213, -0.63935345], dtype=float32)',
 'jax.nn.log_sigmoid': '>>> jax.nn.log_sigmoid(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                       'Array([-1.7014133 , -0.6931472 , -0.07888974], dtype=float32)',
 'jax.nn.log_softmax': '>>> jax.nn.log_softmax(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]))\n'
                       'Array([[-1.3132616 , -0.31326163],\n'
                       '       [-0.07888974, -2.5788898 ]], dtype=float32)',
 'jax.nn.logmeanexp': '>>> jax.nn.logmeanexp(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array(1.497062, dtype=float32)',
 'jax.nn.mish': '>>> jax.nn.mish(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.29809973,  0.        ,  2.4713924 ], dtype=float32)',
 'jax.nn.normalize': '>>> jax.nn.normalize(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]))\n'
                     'Array([[-0.99998  ,  0.99998  ],\n'
                     '       [ 0.9999967, -0.9999967]], dtype=float32)',
 'jax.nn.one_hot': '>>> jax.nn.one_hot(jnp.asarray([0, 2]), 3)\n'
                   'Array([[1., 0., 0.],\n'
                   '       [0., 0., 1.]], dtype=float32)',
 'jax.nn.relu': '>>> jax.nn.relu(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([0. , 0. , 2.5], dtype=float32)',
 'jax.nn.relu6': '>>> jax.nn.relu6(jnp.asarray([-1.5, 2.5, 7.0]))\n'
                 'Array([0. , 2.5, 6. ], dtype=float32)',
 'jax.nn.selu': '>>> jax.nn.selu(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-1.3658143,  0.       ,  2.6267526], dtype=float32)',
 'jax.nn.sigmoid': '>>> jax.nn.sigmoid(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                   'Array([0.18242553, 0.5       , 0.9241418 ], dtype=float32)',
 'jax.nn.silu': '>>> jax.nn.silu(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                'Array([-0.2736383,  0.       ,  2.3103545], dtype=float32)',
 'jax.nn.soft_sign': '>>> jax.nn.soft_sign(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                     'Array([-0.6       ,  0.        ,  0.71428573], dtype=float32)',
 'jax.nn.softmax': '>>> jax.nn.softmax(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]))\n'
                   'Array([[0.2689414 , 0.7310586 ],\n'
                   '       [0.9241418 , 0.07585818]], dtype=float32)',
 'jax.nn.softplus': '>>> jax.nn.softplus(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                    'Array([0.20141327, 0.6931472 , 2.5788898 ], dtype=float32)',
 'jax.nn.sparse_plus': '>>> jax.nn.sparse_plus(jnp.asarray([-1.5, 0.5, 2.5]))\n'
                       'Array([0.    , 0.5625, 2.5   ], dtype=float32)',
 'jax.nn.sparse_sigmoid': '>>> jax.nn.sparse_sigmoid(jnp.asarray([-1.5, 0.5, 2.5]))\n'
                          'Array([0.  , 0.75, 1.  ], dtype=float32)',
 'jax.nn.squareplus': '>>> jax.nn.squareplus(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                      'Array([0.5     , 1.      , 2.850781], dtype=float32)',
 'jax.nn.standardize': '>>> jax.nn.standardize(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]))\n'
                       'Array([[-0.99998  ,  0.99998  ],\n'
                       '       [ 0.9999967, -0.9999967]], dtype=float32)',
 'jax.nn.swish': '>>> jax.nn.swish(jnp.asarray([-1.5, 0.0, 2.5]))\n'
                 'Array([-0.2736383,  0.       ,  2.3103545], dtype=float32)',
 'jax.pmap': '>>> jax.pmap(lambda x: x * 2)(jnp.asarray([[1.0, 2.0]]))\n'
             'Array([[2., 4.]], dtype=float32)',
 'jax.process_count': '>>> jax.process_count()\n1',
 'jax.process_index': '>>> jax.process_index()\n0',
 'jax.random.PRNGKey': '>>> jax.random.PRNGKey(42)\nArray([ 0, 42], dtype=uint32)',
 'jax.random.ball': '>>> jax.random.ball(jax.random.key(0), 2)\n'
                    'Array([0.5145298 , 0.80864906], dtype=float32)',
 'jax.random.bernoulli': '>>> jax.random.bernoulli(jax.random.key(0), 0.5, (4,))\n'
                         'Array([False, False,  True,  True], dtype=bool)',
 'jax.random.beta': '>>> jax.random.beta(jax.random.key(0), 2.0, 3.0, (3,))\n'
                    'Array([0.10676385, 0.5097214 , 0.44823718], dtype=float32)',
 'jax.random.binomial': '>>> jax.random.binomial(jax.random.key(0), 10, 0.3, (4,))\n'
                        'Array([1., 5., 4., 3.], dtype=float32)',
 'jax.random.bits': '>>> jax.random.bits(jax.random.key(0), (3,))\n'
                    'Array([4070199207, 4202968722, 1427181096], dtype=uint32)',
 'jax.random.categorical': '>>> jax.random.categorical(jax.random.key(0), '
                           'jnp.log(jnp.asarray([0.2, 0.3, 0.5])), shape=(4,))\n'
                           'Array([1, 1, 2, 1], dtype=int32)',
 'jax.random.cauchy': '>>> jax.random.cauchy(jax.random.key(0), (3,))\n'
                      'Array([ 6.0274944 , 14.837895  , -0.58172226], dtype=float32)',
 'jax.random.chisquare': '>>> jax.random.chisquare(jax.random.key(0), 2.0, (3,))\n'
                         'Array([0.1536575 , 0.7791638 , 0.21253636], dtype=float32)',
 'jax.random.choice': '>>> jax.random.choice(jax.random.key(0), 5, (3,), replace=False)\n'
                      'Array([0, 1, 4], dtype=int32)',
 'jax.random.clone': '>>> jax.random.clone(jax.random.key(42))\n'
                     'Array((), dtype=key<fry>) overlaying:\n'
                     '[ 0 42]',
 'jax.random.dirichlet': '>>> jax.random.dirichlet(jax.random.key(0), jnp.asarray([1.0, 2.0, '
                         '3.0]))\n'
                         'Array([0.03073652, 0.48011884, 0.48914465], dtype=float32)',
 'jax.random.double_sided_maxwell': '>>> jax.random.double_sided_maxwell(jax.random.key(0), 0.0, '
                                    '1.0, (3,))\n'
                                    'Array([ 1.5457209,  1.5741276, -2.0825307], dtype=float32)',
 'jax.random.exponential': '>>> jax.random.exponential(jax.random.key(0), (3,))\n'
                           'Array([2.950128  , 3.8434246 , 0.40390354], dtype=float32)',
 'jax.random.fold_in': '>>> jax.random.fold_in(jax.random.key(0), 7)\n'
                       'Array((), dtype=key<fry>) overlaying:\n'
                       '[2716826189  292468403]',
 'jax.random.gamma': '>>> jax.random.gamma(jax.random.key(0), 2.0, (3,))\n'
                     'Array([0.5133089 , 1.2001013 , 0.59769374], dtype=float32)',
 'jax.random.generalized_normal': '>>> jax.random.generalized_normal(jax.random.key(0), 2.0, '
                                  '(3,))\n'
                                  'Array([ 0.41823646,  0.9773683 , -1.6820041 ], dtype=float32)',
 'jax.random.geometric': '>>> jax.random.geometric(jax.random.key(0), 0.5, (4,))\n'
                         'Array([1, 1, 2, 2], dtype=int32)',
 'jax.random.gumbel': '>>> jax.random.gumbel(jax.random.key(0), (3,))\n'
                      'Array([ 2.9233725 ,  3.8326178 , -0.09689324], dtype=float32)',
 'jax.random.key': '>>> jax.random.key(42)\nArray((), dtype=key<fry>) overlaying:\n[ 0 42]',
 'jax.random.key_data': '>>> jax.random.key_data(jax.random.key(42))\n'
                        'Array([ 0, 42], dtype=uint32)',
 'jax.random.key_impl': ">>> jax.random.key_impl(jax.random.key(0))\n'threefry2x32'",
 'jax.random.laplace': '>>> jax.random.laplace(jax.random.key(0), (3,))\n'
                       'Array([-2.2569816 , -3.1502788 ,  0.40859547], dtype=float32)',
 'jax.random.loggamma': '>>> jax.random.loggamma(jax.random.key(0), 2.0, (3,))\n'
                        'Array([-0.6668775 ,  0.18240595, -0.5146768 ], dtype=float32)',
 'jax.random.logistic': '>>> jax.random.logistic(jax.random.key(0), (3,))\n'
                        'Array([ 2.896376 ,  3.8217716, -0.6978392], dtype=float32)',
 'jax.random.lognormal': '>>> jax.random.lognormal(jax.random.key(0), 1.0, (3,))\n'
                         'Array([5.066458 , 7.578117 , 0.6481751], dtype=float32)',
 'jax.random.maxwell': '>>> jax.random.maxwell(jax.random.key(0), (3,))\n'
                       'Array([2.6310966 , 0.9910329 , 0.96493053], dtype=float32)',
 'jax.random.multinomial': '>>> jax.random.multinomial(jax.random.key(0), 10, jnp.asarray([0.2, '
                           '0.3, 0.5]))\n'
                           'Array([0., 3., 7.], dtype=float32)',
 'jax.random.multivariate_normal': '>>> jax.random.multivariate_normal(jax.random.key(0), '
                                   'jnp.zeros(2), jnp.asarray([[1.0, 0.5], [0.5, 1.0]]))\n'
                                   'Array([1.622642 , 2.5652518], dtype=float32)',
 'jax.random.normal': '>>> jax.random.normal(jax.random.key(0), (3,))\n'
                      'Array([ 1.622642  ,  2.0252647 , -0.43359444], dtype=float32)',
 'jax.random.orthogonal': '>>> jax.random.orthogonal(jax.random.key(0), 2)\n'
                          'Array([[ 0.9661029 ,  0.25815728],\n'
                          '       [-0.25815728,  0.9661029 ]], dtype=float32)',
 'jax.random.pareto': '>>> jax.random.pareto(jax.random.key(0), 3.0, (3,))\n'
                      'Array([2.673467 , 3.6007476, 1.1441184], dtype=float32)',
 'jax.random.permutation': '>>> jax.random.permutation(jax.random.key(0), 5)\n'
                           'Array([0, 1, 4, 3, 2], dtype=int32)',
 'jax.random.poisson': '>>> jax.random.poisson(jax.random.key(0), 3.0, (4,))\n'
                       'Array([1, 5, 4, 4], dtype=int32)',
 'jax.random.rademacher': '>>> jax.random.rademacher(jax.random.key(0), (3,))\n'
                          'Array([-1, -1,  1], dtype=int32)',
 'jax.random.randint': '>>> jax.random.randint(jax.random.key(0), (4,), 0, 10)\n'
                       'Array([9, 0, 2, 3], dtype=int32)',
 'jax.random.rayleigh': '>>> jax.random.rayleigh(jax.random.key(0), 1.0, (3,))\n'
                        'Array([0.32787833, 0.20810027, 1.4844142 ], dtype=float32)',
 'jax.random.shuffle': '>>> jax.random.shuffle(jax.random.key(0), jnp.arange(5))\n'
                       'Array([0, 1, 4, 3, 2], dtype=int32)',
 'jax.random.split': '>>> jax.random.split(jax.random.key(0))\n'
                     'Array((2,), dtype=key<fry>) overlaying:\n'
                     '[[1797259609 2579123966]\n'
                     ' [ 928981903 3453687069]]',
 'jax.random.t': '>>> jax.random.t(jax.random.key(0), 3.0, (3,))\n'
                 'Array([ 0.8972743 , -0.99850357, -0.4989823 ], dtype=float32)',
 'jax.random.threefry_2x32': '>>> jax.random.threefry_2x32(jnp.asarray([0x13198a2e, 0x03707344], '
                             'jnp.uint32), jnp.asarray([0x243f6a88, 0x85a308d3], jnp.uint32))\n'
                             'Array([3297917596, 1212020640], dtype=uint32)',
 'jax.random.triangular': '>>> jax.random.triangular(jax.random.key(0), 0.0, 0.5, 1.0, (3,))\n'
                          'Array([0.8382394, 0.8965106, 0.4076098], dtype=float32)',
 'jax.random.truncated_normal': '>>> jax.random.truncated_normal(jax.random.key(0), -1.0, 1.0, '
                                '(3,))\n'
                                'Array([ 0.86185926,  0.9412883 , -0.29104838], dtype=float32)',
 'jax.random.uniform': '>>> jax.random.uniform(jax.random.key(0), (3,))\n'
                       'Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)',
 'jax.random.wald': '>>> jax.random.wald(jax.random.key(0), 1.0, (3,))\n'
                    'Array([0.3805977 , 0.41566527, 0.48107237], dtype=float32)',
 'jax.random.weibull_min': '>>> jax.random.weibull_min(jax.random.key(0), 1.0, 2.0, (3,))\n'
                           'Array([1.7175937 , 1.9604654 , 0.63553405], dtype=float32)',
 'jax.random.wrap_key_data': '>>> jax.random.wrap_key_data(jnp.asarray([0, 42], jnp.uint32))\n'
                             'Array((), dtype=key<fry>) overlaying:\n'
                             '[ 0 42]',
 'jax.remat': '>>> jax.grad(jax.remat(lambda x: jnp.sin(jnp.sin(x))))(1.0)\n'
              'Array(0.36003944, dtype=float32, weak_type=True)',
 'jax.shard_map': ">>> jax.shard_map(lambda x: x * 2, mesh=jax.make_mesh((1,), ('i',)), "
                  "in_specs=jax.sharding.P('i'), out_specs=jax.sharding.P('i'))(jnp.asarray([-1.5, "
                  '0.0, 2.5]))\n'
                  'Array([-3.,  0.,  5.], dtype=float32)',
 'jax.show': '>>> len(jax.show(jnp.sin, jnp.ones(3)).kernels())\n1',
 'jax.tree_map': ">>> jax.tree_map(lambda x: x * 2, {'a': 1, 'b': (2, 3)})\n{'a': 2, 'b': (4, 6)}",
 'jax.typeof': '>>> jax.typeof(jnp.ones((2, 3)))\nShapedArray(float32[2,3])',
 'jax.value_and_grad': '>>> jax.value_and_grad(jnp.sin)(1.0)\n'
                       '(Array(0.841471, dtype=float32, weak_type=True), Array(0.5403023, '
                       'dtype=float32, weak_type=True))',
 'jax.vjp': '>>> jax.vjp(jnp.sin, 1.0)[1](2.0)\n(Array(1.0806046, dtype=float32, weak_type=True),)',
 'jax.vmap': '>>> jax.vmap(jnp.dot)(jnp.asarray([[1.0, 2.0], [3.0, 0.5]]), jnp.asarray([[1.0, '
             '2.0], [3.0, 0.5]]))\n'
             'Array([5.  , 9.25], dtype=float32)'}
