"""``torch.distributions``: parameterised probability distributions for sampling (with PyTorch's
draws for a seed), reparameterised sampling (``rsample``), densities, entropies and KL divergences.
Validation (on by default, as PyTorch's ``__debug__``) raises PyTorch's texts.

Implemented: Normal, Uniform, Laplace, Exponential, Bernoulli, Categorical, OneHotCategorical,
Independent, MultivariateNormal, the transforms (``transforms``), TransformedDistribution, LogNormal,
HalfNormal and Gumbel. The gamma family (Gamma, Beta, Dirichlet, Chi2, StudentT), Poisson and
Binomial are not yet here."""

from torch.distributions import constraints, transforms
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.categorical import Categorical, OneHotCategorical
from torch.distributions.distribution import Distribution
from torch.distributions.exponential import Exponential
from torch.distributions.gumbel import Gumbel
from torch.distributions.half_normal import HalfNormal
from torch.distributions.independent import Independent
from torch.distributions.kl import kl_divergence, register_kl
from torch.distributions.laplace import Laplace
from torch.distributions.log_normal import LogNormal
from torch.distributions.multivariate_normal import MultivariateNormal
from torch.distributions.normal import Normal
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import *  # noqa: F401,F403
from torch.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Gumbel", "HalfNormal", "Independent",
           "Laplace", "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "TransformedDistribution",
           "Uniform", "constraints", "kl_divergence", "register_kl", "transforms"] + transforms.__all__
