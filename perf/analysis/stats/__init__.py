"""Trial statistics and the rules that say when two numbers differ: points and the noise rule
(points), curves and knees (curves), the paired rule over rounds (paired), two runs' rank-sum test
(unpaired), and when a comparison is evidence (fair).
"""
