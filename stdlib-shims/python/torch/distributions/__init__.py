"""``torch.distributions``: parameterised probability distributions for sampling (with PyTorch's
draws for a seed), reparameterised sampling (``rsample``), densities, entropies and KL divergences.
Validation (on by default, as PyTorch's ``__debug__``) raises PyTorch's texts.

Implemented: Normal, Uniform, Laplace, Exponential, Bernoulli, Categorical, OneHotCategorical,
Independent and MultivariateNormal. The gamma family (Gamma, Beta, Dirichlet, Chi2, StudentT),
Poisson, Binomial and the transformed distributions are not yet here."""

from torch.distributions import constraints
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.categorical import Categorical, OneHotCategorical
from torch.distributions.distribution import Distribution
from torch.distributions.exponential import Exponential
from torch.distributions.independent import Independent
from torch.distributions.kl import kl_divergence, register_kl
from torch.distributions.laplace import Laplace
from torch.distributions.multivariate_normal import MultivariateNormal
from torch.distributions.normal import Normal
from torch.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent", "Laplace",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform", "constraints", "kl_divergence",
           "register_kl"]
